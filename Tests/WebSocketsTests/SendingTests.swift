import Foundation
import Testing
import TestSupport
@testable import WebSockets

@Suite("Sending: latest slot, overflow, close, shutdown")
struct SendingTests {
    @Test func sendLatestReplacesThePendingMessage() throws {
        let results = EventCollector<[Bool]>()
        let h = try Harness(setup: { delegate in
            delegate.onOpen = { server, id in
                server.send(OutboundMessage(text: "reliable"), to: id)
                let first = server.sendLatest(OutboundMessage(text: "frame 1"), to: id)
                let second = server.sendLatest(OutboundMessage(text: "frame 2"), to: id)
                results.append([first, second])
                server.send(OutboundMessage(text: "reliable 2"), to: id)
            }
        })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        #expect(results.wait { $0.first } == [false, true])
        let messages = h.clientDelegate.waitForMessages(id, count: 3)
        // Reliable messages go first; only the newest latest-slot message is sent.
        #expect(messages == [.text("reliable"), .text("reliable 2"), .text("frame 2")])
        #expect(h.server.stats.latestReplaced == 1)
    }

    @Test func reliableQueueOverflowClosesWith1008() throws {
        let h = try Harness(configure: { $0.reliableQueueLimit = 4 }, setup: { delegate in
            delegate.onOpen = { server, id in
                for n in 0..<5 { server.send(OutboundMessage(text: "m\(n)"), to: id) }
            }
        })
        defer { h.stop() }
        let id = try h.connect()
        let close = h.clientDelegate.waitForClose(id)
        #expect(close?.0 == .policyViolation)
        #expect(close?.1 == "send queue overflow")
        #expect(h.server.stats.queueOverflows == 1)
    }

    @Test func closeCodeAndReasonReachTheClientAfterQueuedMessages() throws {
        let h = try Harness(setup: { delegate in
            delegate.onOpen = { server, id in
                server.send(OutboundMessage(text: "bye"), to: id)
                server.close(id, code: .policyViolation, reason: "room full")
            }
        })
        defer { h.stop() }
        let id = try h.connect()
        let close = h.clientDelegate.waitForClose(id)
        #expect(close?.0 == .policyViolation)
        #expect(close?.1 == "room full")
        #expect(h.clientDelegate.messages(id) == [.text("bye")])
        let serverSaw = h.serverDelegate.events.wait { events -> CloseCode? in
            for case .closed(_, let code, _) in events { return code }
            return nil
        }
        #expect(serverSaw == .policyViolation)
    }

    /// The wire bytes of 1013 are checked with a raw socket, as a browser would see them
    /// (`RawClientTests` checks that `WebSocketClient` reports it unchanged too).
    @Test func tryAgainLaterGoesOnTheWireUnchanged() throws {
        let h = try Harness(setup: { delegate in
            delegate.onOpen = { server, id in server.close(id, code: .tryAgainLater, reason: "room full") }
        })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        let frame = try #require(socket.readFrame())
        #expect(frame.opcode == 8)
        #expect(frame.payload == [0x03, 0xF5] + Array("room full".utf8))
    }

    @Test func clientCloseIsSeenByTheServer() throws {
        let h = try Harness()
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        h.client.close(id, code: .normal, reason: "done here")
        let serverSaw = h.serverDelegate.events.wait { events -> (CloseCode?, String)? in
            for case .closed(_, let code, let reason) in events { return (code, reason) }
            return nil
        }
        #expect(serverSaw?.0 == .normal)
        #expect(serverSaw?.1 == "done here")
        #expect(h.clientDelegate.waitForClose(id)?.0 == .normal)
    }

    @Test func shutdownClosesEveryClientWith1001() throws {
        let h = try Harness()
        let ids = try (0..<3).map { _ in try h.connect() }
        for id in ids { #expect(h.clientDelegate.waitForOutcome(id) == true) }
        h.server.shutdown()
        for id in ids {
            let close = h.clientDelegate.waitForClose(id)
            #expect(close?.0 == .goingAway)
            #expect(close?.1 == "server shutting down")
        }
        let serverClosed = h.serverDelegate.events.all.filter { if case .closed = $0 { true } else { false } }
        #expect(serverClosed.count == 3)
        #expect(h.server.stats.openConnections == 0)
        h.server.shutdown()  // harmless twice
        h.client.shutdown()
    }

    @Test func executeRunsOnTheServiceThread() throws {
        let h = try Harness()
        defer { h.stop() }
        let seen = EventCollector<Bool>()
        let server = h.server
        server.execute { seen.append(server.isOnServiceThread) }
        #expect(seen.wait { $0.first } == true)
        #expect(!server.isOnServiceThread)
        server.execute {
            server.schedule(afterMilliseconds: 5) { seen.append(server.isOnServiceThread) }
        }
        #expect(seen.wait { $0.count >= 2 ? $0[1] : nil } == true)
    }

    @Test func aCancelledTimerNeverRuns() throws {
        let h = try Harness()
        defer { h.stop() }
        let ran = EventCollector<String>()
        let server = h.server
        server.execute {
            let cancelled = server.schedule(afterMilliseconds: 5) { ran.append("cancelled") }
            server.schedule(afterMilliseconds: 20) { ran.append("kept") }
            server.cancel(cancelled)
            server.cancel(cancelled)  // twice: nothing
        }
        #expect(ran.wait { $0.contains("kept") ? true : nil } == true)
        // The cancelled one was due 15 ms before the kept one, on the same loop.
        #expect(ran.all == ["kept"])
        server.execute {
            let fired = server.schedule(afterMilliseconds: 0) { ran.append("fired") }
            server.schedule(afterMilliseconds: 5) { server.cancel(fired) }  // after it ran: nothing
        }
        #expect(ran.wait { $0.contains("fired") ? true : nil } == true)
    }
}
