@testable import WebSockets

/// The application protocol these tests stand in for. The transport has no defaults for a
/// subprotocol or message caps, so the helpers take theirs from here.
enum TestProtocol {
    /// The subprotocol the helpers' servers accept and their clients offer.
    static let subprotocol = "test.v1"
    /// The helpers' servers' inbound message cap.
    static let maxMessageBytes = 16 * 1024
    /// The helpers' clients' inbound message cap (large enough for the big echo tests).
    static let clientMaxMessageBytes = 1 << 20

    /// A server configuration for this protocol on any free port.
    static func serverConfiguration() -> WebSocketServerConfiguration {
        var configuration = WebSocketServerConfiguration(subprotocols: [subprotocol], maxMessageBytes: maxMessageBytes)
        configuration.port = 0
        return configuration
    }
}
