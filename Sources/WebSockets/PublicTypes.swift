/// Identifies one WebSocket connection within one server or client; never reused by that owner.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The number behind the identifier (counts up from 1 per server or client).
    public let rawValue: UInt64
    /// Wraps a raw number (for tests and bookkeeping; real IDs come from the server or client).
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// "#<number>", short enough for log lines.
    public var description: String { "#\(rawValue)" }
}

/// A WebSocket close status code (RFC 6455 §7.4).
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
    /// 1003: a message of a type this endpoint cannot accept.
    public static let unsupportedData = CloseCode(rawValue: 1003)
    /// 1007: a text message that is not valid UTF-8.
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: a message or behaviour that violates policy (e.g. send queue overflow).
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message larger than the endpoint accepts.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = CloseCode(rawValue: 1011)
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

/// The parts of a WebSocket upgrade request the application may judge.
public struct UpgradeRequest: Sendable {
    /// Request path without the query, e.g. "/ws".
    public var path: String
    /// Query string without the "?", empty if none.
    public var query: String
    /// The Origin header, if the client sent one.
    public var origin: String?
    /// The Host header, if the client sent one.
    public var host: String?
    /// Subprotocols offered in Sec-WebSocket-Protocol, in order.
    public var subprotocols: [String]
    /// The peer's IP address as text.
    public var remoteAddress: String
    /// Builds a request (the server builds these; public for tests of delegates).
    public init(path: String, query: String = "", origin: String? = nil, host: String? = nil,
                subprotocols: [String] = [], remoteAddress: String = "") {
        self.path = path
        self.query = query
        self.origin = origin
        self.host = host
        self.subprotocols = subprotocols
        self.remoteAddress = remoteAddress
    }
}

/// What to do with a WebSocket upgrade request.
public enum UpgradeDecision: Sendable {
    /// Let the upgrade proceed.
    case accept
    /// Answer 403 with this reason as the body and do not upgrade.
    case reject(reason: String)
}

/// A complete HTTP response produced by the application for a dynamic route.
public struct HTTPResponse: Sendable {
    /// Status code, e.g. 200.
    public var status: Int
    /// Value of the Content-Type header.
    public var contentType: String
    /// The whole body.
    public var body: [UInt8]
    /// Extra headers (name, value), e.g. ("cache-control", "no-store").
    public var headers: [(String, String)]
    /// A response with a raw body.
    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }
    /// A text response (UTF-8), plain text by default.
    public init(status: Int = 200, text: String, contentType: String = "text/plain; charset=utf-8",
                headers: [(String, String)] = []) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8), headers: headers)
    }
}
