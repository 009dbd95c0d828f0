/// A WebSocket close status code (RFC 6455 §7.4.1), and the ones the protocol uses.
///
/// The protocol owns this type: the room layer closes viewers with these values, and only the
/// adapter to the transport turns them into the transport's own representation.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number sent on the wire.
    public let rawValue: UInt16
    /// Any numeric code (4000–4999 are free for applications).
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Normal close.
    public static let normal = CloseCode(rawValue: 1000)
    /// Server shutting down.
    public static let goingAway = CloseCode(rawValue: 1001)
    /// WebSocket protocol error.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// A binary message where the protocol version expects text.
    public static let unsupportedData = CloseCode(rawValue: 1003)
    /// A text message that is not valid UTF-8.
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// Malformed message, unknown type, missing or invalid field, no `join`, rate limit.
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// A message over `ScrollWire.maxMessageBytes`.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// The server failed.
    public static let internalError = CloseCode(rawValue: 1011)
    /// Server full (`--max-viewers` or `--max-rooms`).
    public static let tryAgainLater = CloseCode(rawValue: 1013)

    /// The number, for logs.
    public var description: String { String(rawValue) }
}
