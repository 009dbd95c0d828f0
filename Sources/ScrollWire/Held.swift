/// A `held` message (docs/protocol.md, "Driving on the room's clock"): the room holds one of this
/// viewer's inputs, stamped with an `at` ahead of its present, until that time. It tells the
/// sender how early the input came, which its clock cannot see otherwise (a held input is applied
/// exactly where stamped, early by a millisecond or by 400), so a clock that leads too far can
/// come back.
public struct HeldMessage: Sendable, Equatable {
    /// The held input's id.
    public var input: UInt64
    /// The room's present when the input arrived, ms (`t`, exact).
    public var time: Double
    /// The room time it is applied at, ms (`at`, exact): its stamp on the room's grid.
    public var at: Double

    /// A `held` message.
    public init(input: UInt64, time: Double, at: Double) {
        self.input = input; self.time = time; self.at = at
    }
}

extension ServerMessageEncoder {
    /// A `held` message (version 1); times exact.
    public static func held(_ m: HeldMessage) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.key("type"); w.string("held")
        w.key("input"); w.integer(m.input)
        w.key("t"); w.exactNumber(m.time)
        w.key("at"); w.exactNumber(m.at)
        w.endObject()
        return w.bytes
    }
}

extension ServerMessageDecoder {
    static func held(_ r: FieldReader) throws(WireError) -> HeldMessage {
        HeldMessage(input: try r.id("input"), time: try r.number("t"), at: try r.number("at"))
    }
}

extension ServerMessageEncoderV2 {
    /// A `held` message (version 2, type `12`): `input` as a `uvar`, `t` as a `num` and `at` as a
    /// `num` Δ from it (the page stamps on the room's grid, so 3–6 bytes each, not 8).
    public static func held(_ m: HeldMessage) -> [UInt8] {
        var w = BinaryWriter(capacity: 24)
        w.byte(ServerMessageTypeV2.held.rawValue)
        w.uvarint(m.input)
        w.compact(m.time)
        w.compact(m.at, from: m.time)
        return w.bytes
    }
}
