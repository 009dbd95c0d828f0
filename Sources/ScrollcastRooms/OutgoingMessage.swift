import ScrollWire

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

    /// `refused` for input `inputID` (nil for a message that is not an input, such as a sharing
    /// message), in the form viewers speaking `version` read.
    public static func refused(input inputID: UInt64?, code: RefusalCode, reason: String,
                               version: WireVersion) -> OutgoingMessage {
        encoded(for: version, v1: { ServerMessageEncoder.refused(input: inputID, code: code, reason: reason) },
                v2: { ServerMessageEncoderV2.refused(input: inputID, code: code, reason: reason) })
    }

    /// A message for one viewer speaking `version`: `v1`'s JSON text or `v2`'s binary, only that
    /// one encoded.
    public static func encoded(for version: WireVersion, v1: () -> [UInt8], v2: () -> [UInt8]) -> OutgoingMessage {
        switch version {
        case .v1: OutgoingMessage(utf8: v1())
        case .v2: OutgoingMessage(binary: v2())
        }
    }
}

/// One message of a room in each protocol version it is sent in: version 1's JSON text and
/// version 2's binary, each encoded once however many viewers get it. A room encodes only the
/// versions its audience speaks, so a form is nil when no viewer needs it, or when the message
/// exists in one version only (version 2's `texts`). A viewer gets the form of its own version,
/// or nothing if there is none.
public struct RoomMessage {
    /// The version-1 (JSON text) form.
    public var v1: OutgoingMessage?
    /// The version-2 (binary) form.
    public var v2: OutgoingMessage?

    /// A message with the given forms.
    public init(v1: OutgoingMessage? = nil, v2: OutgoingMessage? = nil) {
        self.v1 = v1
        self.v2 = v2
    }

    /// A message in one version only: `form`, for viewers speaking `version`.
    public init(_ form: OutgoingMessage, for version: WireVersion) {
        switch version {
        case .v1: self.init(v1: form)
        case .v2: self.init(v2: form)
        }
    }

    /// The form viewers speaking `version` get.
    public subscript(version: WireVersion) -> OutgoingMessage? {
        switch version {
        case .v1: return v1
        case .v2: return v2
        }
    }
}
