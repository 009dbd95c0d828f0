import Foundation
import Synchronization
import Testing
import TestSupport
@testable import WebSockets

/// The epoll service loop (ServiceLoop, Sources/CWebSocketsShim/event_loop.c) with many sockets:
/// every connection gets every message in order, sockets that close leave the epoll set and new
/// ones that reuse their descriptor numbers join it, and timers stay on time while lws has a far
/// timer of its own armed (the ping).
@Suite("Epoll loop: many connections, descriptor churn, timers")
struct EventLoopTests {
    static let connections = 240
    static let churned = 120
    static let ticks = 12

    @Test func manyConnectionsGetEveryTickThroughChurn() throws {
        let counts = TickCounter()
        let serverDelegate = TestServerDelegate()
        let open = Mutex<Set<ConnectionID>>([])
        serverDelegate.onOpen = { _, id in open.withLock { _ = $0.insert(id) } }
        var configuration = TestProtocol.serverConfiguration()
        configuration.pingInterval = 30  // lws arms its own timer 30 s out; ours must not wait for it
        configuration.idleTimeout = 60
        let server = WebSocketServer(configuration: configuration, delegate: serverDelegate)
        let port = try server.start()
        defer { server.shutdown() }
        let client = WebSocketClient(delegate: counts, maxMessageBytes: 1 << 16)
        try client.start()
        defer { client.shutdown() }
        #expect(server.loop.usesEpoll)
        #expect(client.loop.usesEpoll)

        let url = "ws://127.0.0.1:\(port)/ws"
        var ids = try (0..<Self.connections).map { _ in try client.connect(url: url, subprotocol: TestProtocol.subprotocol) }
        #expect(waitUntil(timeout: 20) { counts.connectedCount() == Self.connections })
        #expect(waitUntil(timeout: 20) { open.withLock { $0.count } == Self.connections })

        // Every open connection gets `ticks` numbered messages, one tick every 5 ms from a timer.
        func broadcast(round: UInt32) {
            server.execute {
                var tick: UInt32 = 0
                func next() {
                    let message = OutboundMessage(binary: withUnsafeBytes(of: (round << 16 | tick).littleEndian) { [UInt8]($0) })
                    for id in open.withLock({ $0 }) { server.send(message, to: id) }
                    tick += 1
                    if tick < UInt32(Self.ticks) { server.schedule(afterMilliseconds: 5, next) }
                }
                next()
            }
        }
        broadcast(round: 1)
        #expect(waitUntil(timeout: 20) { counts.connectionsWithAll(round: 1, ticks: Self.ticks) == Self.connections })

        // Half close; their server sockets leave the epoll set; as many new ones connect and take
        // the lowest free descriptor numbers, which are the ones just freed.
        let socketsBefore = Self.socketDescriptors()
        for id in ids.prefix(Self.churned) { client.close(id, code: .normal, reason: "churn") }
        let serverClosed = serverDelegate.events.wait(timeout: 20) { events -> [ConnectionID]? in
            let closed = events.compactMap { if case .closed(let id, _, _) = $0 { id } else { nil } }
            return closed.count >= Self.churned ? closed : nil
        }
        #expect(serverClosed?.count == Self.churned)
        open.withLock { $0.subtract(serverClosed ?? []) }
        ids.removeFirst(Self.churned)
        ids += try (0..<Self.churned).map { _ in try client.connect(url: url, subprotocol: TestProtocol.subprotocol) }
        #expect(waitUntil(timeout: 20) { open.withLock { $0.count } == Self.connections })
        let socketsAfter = Self.socketDescriptors()
        let reused = socketsBefore.filter { fd, inode in socketsAfter[fd].map { $0 != inode } ?? false }
        #expect(reused.count >= Self.churned, "descriptor numbers reused by new sockets: \(reused.count)")

        broadcast(round: 2)
        #expect(waitUntil(timeout: 20) { counts.connectionsWithAll(round: 2, ticks: Self.ticks) == Self.connections })
        #expect(counts.outOfOrder() == 0)
        #expect(Set(ids).count == Self.connections)
    }

    /// Descriptor number → socket inode for every socket this process has open.
    static func socketDescriptors() -> [Int: String] {
        var result: [Int: String] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in names {
            guard let fd = Int(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:") else { continue }
            result[fd] = target
        }
        return result
    }
}

/// Counts, per connection and round, the ticks that arrived, and any that came out of order.
final class TickCounter: WebSocketClientDelegate, @unchecked Sendable {
    private struct State {
        var connected: Set<ConnectionID> = []
        var next: [ConnectionID: [UInt32: UInt32]] = [:]
        var outOfOrder = 0
    }
    private let state = Mutex(State())

    func client(_ client: WebSocketClient, didConnect connection: ConnectionID) {
        state.withLock { _ = $0.connected.insert(connection) }
    }
    func client(_ client: WebSocketClient, didFailToConnect connection: ConnectionID, reason: String) {}
    func client(_ client: WebSocketClient, didReceive message: InboundMessage, from connection: ConnectionID) {
        guard case .binary(let bytes) = message, bytes.count == 4 else {
            state.withLock { $0.outOfOrder += 1 }
            return
        }
        let value = bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        let round = value >> 16, tick = value & 0xFFFF
        state.withLock { state in
            let expected = state.next[connection, default: [:]][round, default: 0]
            if tick != expected { state.outOfOrder += 1 }
            state.next[connection, default: [:]][round] = tick + 1
        }
    }
    func client(_ client: WebSocketClient, didClose connection: ConnectionID, code: CloseCode?, reason: String) {}

    func connectedCount() -> Int { state.withLock { $0.connected.count } }
    func outOfOrder() -> Int { state.withLock { $0.outOfOrder } }
    /// Connections that received every tick of `round`.
    func connectionsWithAll(round: UInt32, ticks: Int) -> Int {
        state.withLock { state in state.next.values.filter { $0[round] == UInt32(ticks) }.count }
    }
}
