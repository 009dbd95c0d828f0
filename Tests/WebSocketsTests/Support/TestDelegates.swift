import Foundation
import TestSupport
@testable import WebSockets

enum ServerEvent: Sendable {
    case opened(ConnectionID, UpgradeRequest, subprotocol: String?)
    case received(ConnectionID, InboundMessage)
    case closed(ConnectionID, CloseCode?, String)
}

enum ClientEvent: Sendable, Equatable {
    case connected(ConnectionID)
    case failed(ConnectionID, String)
    case received(ConnectionID, InboundMessage)
    case closed(ConnectionID, CloseCode?, String)
}

/// A server delegate that records everything and can echo or run hooks (on the service thread).
final class TestServerDelegate: WebSocketServerDelegate, @unchecked Sendable {
    let events = EventCollector<ServerEvent>()
    var echo = false
    var decide: (@Sendable (UpgradeRequest) -> UpgradeDecision)?
    var routes: [String: HTTPResponse] = [:]
    var streamRoutes: [String: (HTTPResponseStream) -> Void] = [:]
    var onOpen: ((WebSocketServer, ConnectionID) -> Void)?
    var onReceive: ((WebSocketServer, ConnectionID, InboundMessage) -> Void)?

    func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision {
        decide?(request) ?? .accept
    }
    func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?) {
        events.append(.opened(connection, request, subprotocol: subprotocol))
        onOpen?(server, connection)
    }
    func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {
        events.append(.received(connection, message))
        onReceive?(server, connection, message)
        guard echo else { return }
        switch message {
        case .text(let text): server.send(OutboundMessage(text: text), to: connection)
        case .binary(let bytes): server.send(OutboundMessage(binary: bytes), to: connection)
        }
    }
    func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String) {
        events.append(.closed(connection, code, reason))
    }
    func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse? {
        routes[path]
    }
    func server(_ server: WebSocketServer, streamResponseTo method: String, path: String, query: String,
                authorization: String?) -> ((HTTPResponseStream) -> Void)? {
        streamRoutes[path]
    }

    func openedIDs() -> [ConnectionID] {
        events.all.compactMap { if case .opened(let id, _, _) = $0 { id } else { nil } }
    }

    /// Waits until `count` connections have opened; the subprotocol each reported, in order.
    func waitForOpenedSubprotocols(count: Int) -> [String?]? {
        events.wait { events in
            let opened = events.compactMap { event -> String?? in
                if case .opened(_, _, let subprotocol) = event { subprotocol } else { nil }
            }
            return opened.count >= count ? opened : nil
        }
    }
}

final class TestClientDelegate: WebSocketClientDelegate, @unchecked Sendable {
    let events = EventCollector<ClientEvent>()
    func client(_ client: WebSocketClient, didConnect connection: ConnectionID) { events.append(.connected(connection)) }
    func client(_ client: WebSocketClient, didFailToConnect connection: ConnectionID, reason: String) {
        events.append(.failed(connection, reason))
    }
    func client(_ client: WebSocketClient, didReceive message: InboundMessage, from connection: ConnectionID) {
        events.append(.received(connection, message))
    }
    func client(_ client: WebSocketClient, didClose connection: ConnectionID, code: CloseCode?, reason: String) {
        events.append(.closed(connection, code, reason))
    }

    /// Waits for connect or failure of `id`; true if connected.
    func waitForOutcome(_ id: ConnectionID) -> Bool? {
        events.wait { events in
            for event in events {
                if event == .connected(id) { return true }
                if case .failed(id, _) = event { return false }
            }
            return nil
        }
    }

    func messages(_ id: ConnectionID) -> [InboundMessage] {
        events.all.compactMap { if case .received(id, let m) = $0 { m } else { nil } }
    }

    func waitForMessages(_ id: ConnectionID, count: Int) -> [InboundMessage]? {
        events.wait { events in
            let m = events.compactMap { if case .received(id, let m) = $0 { m } else { nil } }
            return m.count >= count ? m : nil
        }
    }

    func waitForClose(_ id: ConnectionID) -> (CloseCode?, String)? {
        events.wait { events in
            for case .closed(id, let code, let reason) in events { return (code, reason) }
            return nil
        }
    }
}

/// A running server + client pair, shut down by `stop()`.
struct Harness {
    let server: WebSocketServer
    let serverDelegate: TestServerDelegate
    let client: WebSocketClient
    let clientDelegate: TestClientDelegate
    var port: Int { server.port }
    var url: String { "ws://127.0.0.1:\(port)/ws" }

    init(configure: (inout WebSocketServerConfiguration) -> Void = { _ in }, setup: (TestServerDelegate) -> Void = { _ in }) throws {
        var configuration = TestProtocol.serverConfiguration()
        configure(&configuration)
        serverDelegate = TestServerDelegate()
        setup(serverDelegate)
        server = WebSocketServer(configuration: configuration, delegate: serverDelegate)
        try server.start()
        clientDelegate = TestClientDelegate()
        client = WebSocketClient(delegate: clientDelegate, maxMessageBytes: TestProtocol.clientMaxMessageBytes)
        try client.start()
    }

    func connect(subprotocol: String? = TestProtocol.subprotocol, origin: String? = nil, path: String = "/ws") throws -> ConnectionID {
        try client.connect(url: "ws://127.0.0.1:\(port)\(path)", subprotocol: subprotocol, origin: origin)
    }

    func stop() {
        client.shutdown()
        server.shutdown()
    }
}
