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
    /// The message carried in the query (`WebSocketServerConfiguration.firstMessageParameter`),
    /// decoded; the delegate gets it as the connection's first text message.
    var firstMessage: [UInt8]? = nil
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
