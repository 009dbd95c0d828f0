import WebSockets

/// A WebSocket echo endpoint for conformance testing (Autobahn|Testsuite), and nothing else.
///
/// It runs the same `WebSocketServer` wrapper the viewers use — its reassembly of fragments, its
/// UTF-8 validation, its close handling — and sends every whole message back as received, text
/// as text and binary as binary. It exists only when `scrollcast --conformance-echo` asks for it,
/// because it lifts limits the real endpoint must keep: no subprotocol required, messages of up
/// to 16 MiB (Autobahn's 9.* cases) and a deep send queue (9.7/9.8 send a thousand messages
/// without waiting for their echoes).
final class EchoEndpoint: WebSocketServerDelegate, @unchecked Sendable {
    /// Where the endpoint listens.
    static let path = "/echo"
    /// Largest message echoed; Autobahn's largest is exactly 16 MiB.
    static let maxMessageBytes = 16 * 1024 * 1024
    /// Messages that may wait to be echoed on one connection.
    static let sendQueueLimit = 100_000

    private var server: WebSocketServer?

    /// An endpoint that is not listening yet.
    init() {}

    /// The wrapper's configuration for the echo endpoint on `host:port`.
    static func configuration(host: String, port: Int) -> WebSocketServerConfiguration {
        var configuration = WebSocketServerConfiguration(subprotocols: [], maxMessageBytes: maxMessageBytes)
        configuration.host = host
        configuration.port = port
        configuration.webSocketPath = path
        configuration.acceptsMissingSubprotocol = true
        configuration.reliableQueueLimit = sendQueueLimit
        return configuration
    }

    /// Binds and starts echoing; returns the bound port.
    func start(host: String, port: Int) throws -> Int {
        let server = WebSocketServer(configuration: Self.configuration(host: host, port: port), delegate: self)
        self.server = server
        return try server.start()
    }

    /// Closes every connection with 1001 and stops; returns when stopped. Thread-safe.
    func shutdown() {
        server?.shutdown()
    }

    /// Nothing to set up per connection.
    func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?) {}

    /// Sends the message straight back, in order, with its type.
    func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {
        switch message {
        case .text(let text): server.send(OutboundMessage(text: text), to: connection)
        case .binary(let bytes): server.send(OutboundMessage(binary: bytes), to: connection)
        }
    }

    /// Nothing to clean up per connection.
    func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String) {}
}
