/// Identifies one WebSocket connection within one server or client; never reused by that owner.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The number behind the identifier (counts up from 1 per server or client).
    public let rawValue: UInt64
    /// Wraps a raw number (for tests and bookkeeping; real IDs come from the server or client).
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// "#<number>", short enough for log lines.
    public var description: String { "#\(rawValue)" }
}

/// A timer on a server's service thread, from `WebSocketServer.schedule`: what `cancel` takes.
public struct ServiceTimer: Hashable, Sendable {
    let id: UInt64
}

/// A WebSocket close status code (RFC 6455 §7.4), with the codes this library itself sends or
/// reports. An application's protocol names its own codes (Scrollcast's live in ScrollWire) and
/// passes any of them through `init(rawValue:)`.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code sent on the wire.
    public let rawValue: UInt16
    /// Wraps any numeric code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page closed).
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1007: a text message that is not valid UTF-8.
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: a message or behaviour that violates policy (e.g. send queue overflow).
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message larger than the endpoint accepts.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1013: try again later (server overloaded, room full). Browsers and `WebSocketClient` see it
    /// as sent; libwebsockets' own parser (the server receiving it from a peer) treats 1012...2999
    /// as invalid and reports 1002 instead.
    public static let tryAgainLater = CloseCode(rawValue: 1013)
    /// The number, for logs.
    public var description: String { String(rawValue) }
}

/// A complete (reassembled) message received from a peer.
public enum InboundMessage: Sendable, Equatable {
    /// A text message, already checked to be valid UTF-8.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}
