/// A `beat` message (docs/protocol.md, "The complete history"): the room's present and how far
/// its history is complete, for a viewer whose join asked (`complete: true`), sent while no
/// frame says it (inputs held for their time, frames skipped, a join, the room coming to rest).
public struct BeatMessage: Sendable, Equatable {
    /// The room's present when it was sent, ms (`t`, exact).
    public var time: Double
    /// Every change the room makes at or before this room time has been sent to the viewer by now
    /// (`complete`, exact; never after `t`).
    public var complete: Double
    /// `FrameHash` of the room's frame at `time` (`hash`): only in the inputs stream.
    public var hash: UInt64?

    /// A beat.
    public init(time: Double, complete: Double, hash: UInt64? = nil) {
        self.time = time; self.complete = complete; self.hash = hash
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
        if let hash = m.hash { w.key("hash"); w.string(HashText.hex(hash)) }
        w.endObject()
        return w.bytes
    }
}

extension ServerMessageEncoderV2 {
    /// A `beat` message (version 2, type `0a`): `t` and `complete` as `f64`. With a hash (the
    /// inputs stream), type `11`: `t` as a `num` (a frame's time, 0.01 ms, takes 3–5 bytes),
    /// `complete` as a `num` Δ from it (1 byte when they are equal, as in motion), and the hash
    /// as 8 little-endian bytes: 13–15 bytes instead of 25, 4 times a second to every viewer.
    public static func beat(_ m: BeatMessage) -> [UInt8] {
        var w = BinaryWriter(capacity: 25)
        guard let hash = m.hash else {
            w.byte(ServerMessageTypeV2.beat.rawValue)
            w.float64(m.time)
            w.float64(m.complete)
            return w.bytes
        }
        w.byte(ServerMessageTypeV2.hashedBeat.rawValue)
        w.compact(m.time)
        w.compact(m.complete, from: m.time)
        w.u64(hash)
        return w.bytes
    }
}
