/// `pong` (docs/protocol.md): the answer to a client's `ping`, sent by the node the client is
/// connected to as soon as it reads the ping, carrying the ping's `id`. A client times the round
/// trip itself: the page measures its link with it once loaded, where the join's own round trip
/// was read late by a page still compiling its script.
extension ServerMessageEncoder {
    /// A `pong` message (version 1).
    public static func pong(id: UInt64) -> [UInt8] {
        Array(#"{"type":"pong","id":\#(id)}"#.utf8)
    }
}

extension ServerMessageEncoderV2 {
    /// A `pong` message (version 2, type `13`): the id as a `uvar`.
    public static func pong(id: UInt64) -> [UInt8] {
        var w = BinaryWriter(capacity: 10)
        w.byte(ServerMessageTypeV2.pong.rawValue)
        w.uvarint(id)
        return w.bytes
    }
}
