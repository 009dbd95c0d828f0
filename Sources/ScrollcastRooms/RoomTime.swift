/// The room times a room gives its changes (docs/protocol.md, "`batch` (`10`)"): whole counts
/// of 1/256 ms, so a version-2 batch writes each in 2–5 bytes (a `num` count) instead of the 9
/// of an arbitrary double. The room decides these times (its clock and each viewer's
/// `InputTimeMapper` give any double), so it rounds them where it stamps a change, before the
/// engine, the log, the batches and every replica see them: all still apply the very same double.
/// A 1/256 ms step (3.9 µs) is far below anything a gesture's velocity or a frame can tell.
public enum RoomTime {
    /// Steps per millisecond: a power of two, so rounding and the counts are exact.
    public static let stepsPerMs = 256.0

    /// The grid time at or before `time` (floor: times keep their order, ties allowed).
    public static func floor(_ time: Double) -> Double {
        guard time.isFinite else { return time }
        return (time * stepsPerMs).rounded(.down) / stepsPerMs
    }

    /// The grid time at or after `time`.
    public static func ceiling(_ time: Double) -> Double {
        guard time.isFinite else { return time }
        return (time * stepsPerMs).rounded(.up) / stepsPerMs
    }

    /// The grid time a change mapped to `time` takes when no change may come before `floor`
    /// (the last time given to the engine, just after the complete mark): `time` rounded down,
    /// unless that falls before `floor`, then `floor` rounded up. So a stamp never goes below
    /// the floor, never passes `time` by a step or more, and later changes never get earlier
    /// stamps (their times are at or after the floor, which is at or after every earlier stamp).
    public static func stamp(_ time: Double, floor lowest: Double) -> Double {
        max(floor(time), ceiling(lowest))
    }
}
