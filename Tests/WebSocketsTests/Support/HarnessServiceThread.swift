import Testing
import TestSupport
@testable import WebSockets

extension Harness {
    /// Runs `work` on the server's service thread and returns what it returned.
    func onServiceThread<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T? {
        let result = EventCollector<T>()
        server.execute { result.append(work()) }
        return result.wait { $0.first }
    }

    /// The server's id of the first connection it opened.
    func openedID() -> ConnectionID? {
        serverDelegate.events.wait { events in
            events.lazy.compactMap { if case .opened(let id, _, _) = $0 { id } else { nil } }.first
        }
    }

    /// A raw socket that completed the handshake, and the server's id for it.
    func rawConnection() throws -> (RawSocket, ConnectionID) {
        let socket = try RawSocket(port: port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        return (socket, try #require(openedID()))
    }
}
