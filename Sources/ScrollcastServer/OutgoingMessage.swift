/// A message the room layer sends: encoded once, then shared by every viewer it goes to.
///
/// A class so that one frame fanned out to a thousand viewers is one allocation. The transport
/// may keep its own prepared form of the bytes (with its framing headroom) in `transportForm`
/// the first time it sends the message, so the conversion, too, happens once per message and
/// not once per viewer. Touched only on the room thread.
public final class OutgoingMessage {
    /// How the bytes go on the wire.
    public enum Kind: Sendable, Hashable {
        /// A text message: the bytes are UTF-8 (JSON, in protocol v1).
        case text
        /// A binary message.
        case binary
    }

    /// Text or binary.
    public let kind: Kind
    /// The payload.
    public let bytes: [UInt8]
    /// The transport's prepared copy of `bytes`, made on first send and reused for every other
    /// viewer. Opaque to the room layer.
    public var transportForm: AnyObject?

    /// A text message from bytes the caller promises are UTF-8 (an encoder's JSON).
    public init(utf8 bytes: [UInt8]) {
        self.kind = .text
        self.bytes = bytes
    }

    /// A binary message.
    public init(binary bytes: [UInt8]) {
        self.kind = .binary
        self.bytes = bytes
    }

    /// Payload size in bytes.
    public var count: Int { bytes.count }
}
