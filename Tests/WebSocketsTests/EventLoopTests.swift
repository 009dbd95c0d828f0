import Foundation
import Testing
@testable import WebSockets

/// The service thread waits on libev's epoll loop: these check that what the old poll() loop gave
/// for free (timers, cross-thread wake-ups, shutdown) still happens when only the loop can wake it.
@Suite("Event loop: epoll by default, timers, wake-ups and shutdown")
struct EventLoopTests {
    final class Quiet: WebSocketServerDelegate {
        func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest) {}
        func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {}
        func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String) {}
    }

    static let bothLoops: [EventLoopChoice] = [.epoll, .lwsPoll]

    private func startServer(_ eventLoop: EventLoopChoice, delegate: any WebSocketServerDelegate = Quiet()) throws -> WebSocketServer {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let server = WebSocketServer(configuration: configuration, delegate: delegate, eventLoop: eventLoop)
        try server.start()
        return server
    }

    @Test func serverAndClientWaitOnEpollByDefault() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let server = WebSocketServer(configuration: configuration, delegate: Quiet())
        try server.start()
        defer { server.shutdown() }
        let client = WebSocketClient(delegate: TestClientDelegate())
        try client.start()
        defer { client.shutdown() }
        #expect(server.loop.backendName == "epoll")
        #expect(client.loop.backendName == "epoll")
    }

    @Test func thePollSwitchReallyUsesLibWebSocketsOwnLoop() throws {
        let server = try startServer(.lwsPoll)
        defer { server.shutdown() }
        #expect(server.loop.backendName == "lws-poll")
    }

    /// Scheduled from queued jobs on a server with no sockets but the listener: nothing but the
    /// timers themselves can wake the loop. A far timer is armed in an earlier pass, so the nearer
    /// ones must move the wake-up earlier (lws 4.1.6's libev plugin alone cannot: it leaves an
    /// armed timer where it is, and these would wait the full minute).
    @Test(arguments: bothLoops)
    func timersScheduledFromJobsFireInDeadlineOrderWithNoTraffic(_ eventLoop: EventLoopChoice) throws {
        let server = try startServer(eventLoop)
        defer { server.shutdown() }
        let fired = Recorder<Int>()
        let farTimerArmed = Recorder<Bool>()
        server.execute {
            server.schedule(afterMilliseconds: 60_000) { fired.append(60_000) }
            farTimerArmed.append(true)
        }
        #expect(farTimerArmed.wait { $0.first } == true)
        server.execute {
            for delay in [40, 5, 25, 15] {
                server.schedule(afterMilliseconds: Double(delay)) { fired.append(delay) }
            }
        }
        let order = fired.wait { $0.count >= 4 ? Array($0.prefix(4)) : nil }
        #expect(order == [5, 15, 25, 40])
    }

    @Test(arguments: bothLoops)
    func timersScheduledInsideATimerKeepFiring(_ eventLoop: EventLoopChoice) throws {
        let server = try startServer(eventLoop)
        defer { server.shutdown() }
        let ticks = Recorder<Int>()
        server.execute {
            var count = 0
            func tick() {
                count += 1
                ticks.append(count)
                if count < 20 { server.schedule(afterMilliseconds: 1, tick) }
            }
            server.schedule(afterMilliseconds: 1, tick)
        }
        #expect(ticks.wait { $0.count >= 20 ? $0 : nil } == Array(1...20))
    }

    /// Many idle sockets in the loop; wake-ups come only from other threads.
    @Test(arguments: bothLoops)
    func crossThreadJobsReachAServerWithManyIdleConnections(_ eventLoop: EventLoopChoice) throws {
        let serverDelegate = TestServerDelegate()
        let server = try startServer(eventLoop, delegate: serverDelegate)
        let clientDelegate = TestClientDelegate()
        let client = WebSocketClient(delegate: clientDelegate, maxMessageBytes: 1 << 16, eventLoop: eventLoop)
        try client.start()
        defer {
            client.shutdown()
            server.shutdown()
        }
        let count = 150
        let ids = try (0..<count).map { _ in try client.connect(url: "ws://127.0.0.1:\(server.port)/ws") }
        for id in ids { #expect(clientDelegate.waitForOutcome(id) == true) }
        let serverIDs = serverDelegate.events.wait { events -> [ConnectionID]? in
            let opened = events.compactMap { if case .opened(let id, _) = $0 { id } else { nil } }
            return opened.count >= count ? opened : nil
        }
        #expect(serverIDs?.count == count)

        // Jobs from four threads at once; each must run, on the service thread.
        let ran = Recorder<Bool>()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50 { server.execute { ran.append(server.isOnServiceThread) } }
        }
        let results = ran.wait { $0.count >= 200 ? $0 : nil }
        #expect(results?.count == 200)
        #expect(results?.allSatisfy { $0 } == true)

        // A send queued from another thread reaches every idle connection.
        let everyone = serverIDs ?? []
        server.execute {
            for id in everyone { server.send(OutboundMessage(text: "wake"), to: id) }
        }
        for id in ids { #expect(clientDelegate.waitForMessages(id, count: 1) == [.text("wake")]) }
    }

    /// Shutdown must finish the close handshakes and destroy the context (and the loop after it)
    /// while connections are open on both ends.
    @Test(arguments: bothLoops)
    func shutdownWithOpenConnectionsCompletesOnBothEnds(_ eventLoop: EventLoopChoice) throws {
        let serverDelegate = TestServerDelegate()
        let server = try startServer(eventLoop, delegate: serverDelegate)
        let clientDelegate = TestClientDelegate()
        let client = WebSocketClient(delegate: clientDelegate, maxMessageBytes: 1 << 16, eventLoop: eventLoop)
        try client.start()
        let ids = try (0..<40).map { _ in try client.connect(url: "ws://127.0.0.1:\(server.port)/ws") }
        for id in ids { #expect(clientDelegate.waitForOutcome(id) == true) }

        // The server shuts down first: every client connection gets its close frame.
        server.shutdown()
        for id in ids { #expect(clientDelegate.waitForClose(id)?.0 == .goingAway) }
        #expect(server.stats.openConnections == 0)
        #expect(!server.loop.isRunning)
        client.shutdown()
        #expect(!client.loop.isRunning)

        // And a client shutting down with connections open: the server hears every close.
        let second = try startServer(eventLoop, delegate: serverDelegate)
        defer { second.shutdown() }
        let secondDelegate = TestClientDelegate()
        let secondClient = WebSocketClient(delegate: secondDelegate, maxMessageBytes: 1 << 16, eventLoop: eventLoop)
        try secondClient.start()
        let more = try (0..<40).map { _ in try secondClient.connect(url: "ws://127.0.0.1:\(second.port)/ws") }
        for id in more { #expect(secondDelegate.waitForOutcome(id) == true) }
        secondClient.shutdown()
        for id in more { #expect(secondDelegate.waitForClose(id) != nil) }
        let closedOnServer = serverDelegate.events.wait { events -> Int? in
            let closed = events.filter { if case .closed = $0 { true } else { false } }.count
            return closed >= 80 ? closed : nil
        }
        #expect(closedOnServer == 80)
    }

    @Test func libEvTraceLinesAreRecognised() {
        #expect(isLibEvTraceLine("elops_io_ev: wsi 0x1 ws flags 0x5 0x2 0\n"))
        #expect(isLibEvTraceLine("elops_accept_ev\n"))
        #expect(!isLibEvTraceLine("lws_create_vhost: Creating Vhost 'default' port 80\n"))
        #expect(!isLibEvTraceLine(""))
    }
}
