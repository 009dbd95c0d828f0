/// A `beat` message (docs/protocol.md, "The complete history"): the room's present and how far
/// its history is complete, for a viewer whose join asked (`complete: true`), sent while no
/// frame says it (inputs held for their time, frames skipped, a join, the room coming to rest).
public struct BeatMessage: Sendable, Equatable {
    /// The room's present when it was sent, ms (`t`, exact).
    public var time: Double
    /// Every change the room makes at or before this room time has been sent to the viewer by now
    /// (`complete`, exact; never after `t`).
    public var complete: Double

    /// A beat.
    public init(time: Double, complete: Double) {
        self.time = time; self.complete = complete
    }
}

extension ServerMessageEncoder {
    /// A `beat` message (version 1); numbers exact.
    public static func beat(_ m: BeatMessage) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.key("type"); w.string("beat")
        w.key("t"); w.exactNumber(m.time)
        w.key("complete"); w.exactNumber(m.complete)
        w.endObject()
        return w.bytes
    }
}

extension ServerMessageEncoderV2 {
    /// A `beat` message (version 2, type `0a`): `t` and `complete` as `f64`.
    public static func beat(_ m: BeatMessage) -> [UInt8] {
        var w = BinaryWriter(capacity: 17)
        w.byte(ServerMessageTypeV2.beat.rawValue)
        w.float64(m.time)
        w.float64(m.complete)
        return w.bytes
    }
}
