import Foundation
import Glibc
import Testing
@testable import WebSockets

/// Messages written at once to an idle connection (DirectWrite.swift), and everything that must
/// still wait: a busy connection keeps latest-only frames and reliable order, and a reply from a
/// connection's own RECEIVE callback goes out after the pong lws owes it.
@Suite("Sending: written at once when idle")
struct DirectWriteTests {
    /// Runs `work` on the service thread and returns what it returned.
    private func onServiceThread<T: Sendable>(_ server: WebSocketServer, _ work: @escaping @Sendable () -> T) -> T? {
        let result = Recorder<T>()
        server.execute { result.append(work()) }
        return result.wait { $0.first }
    }

    private func openedID(_ h: Harness) -> ConnectionID? {
        h.serverDelegate.events.wait { events in
            events.lazy.compactMap { if case .opened(let id, _, _) = $0 { id } else { nil } }.first
        }
    }

    /// Sends `count` frames with `sendLatest` from one service-thread block to a freshly opened
    /// client connection; what each call returned (replaced or not), and the client's id.
    private func sendFrames(_ count: Int, _ h: Harness) throws -> (replaced: [Bool]?, client: ConnectionID) {
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let serverID = try #require(openedID(h))
        let server = h.server
        let replaced = onServiceThread(server) {
            (1...count).map { server.sendLatest(OutboundMessage(text: "frame \($0)"), to: serverID) }
        }
        return (replaced, id)
    }

    @Test func framesToAnIdleConnectionAreWrittenAtOnceAndNoneIsSkipped() throws {
        let h = try Harness(configure: { $0.writesAtOnce = true })
        defer { h.stop() }
        // Each frame leaves at once, so the slot is empty again for the next: nothing replaced.
        let (replaced, id) = try sendFrames(3, h)
        #expect(replaced == [false, false, false])
        #expect(h.clientDelegate.waitForMessages(id, count: 3) == [.text("frame 1"), .text("frame 2"), .text("frame 3")])
        #expect(h.server.stats.messagesWrittenAtOnce == 3)
        #expect(h.server.stats.latestReplaced == 0)
    }

    @Test func aConnectionThatStoppedReadingGetsReliableMessagesInOrderAndOnlyTheNewestFrame() throws {
        let h = try Harness(configure: { $0.writesAtOnce = true })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        let serverID = try #require(openedID(h))
        let server = h.server
        // More than the socket buffers of both ends hold while the client does not read: the
        // kernel takes part of it at once and lws keeps the rest, so the connection is busy.
        let big = [UInt8](repeating: 0x5a, count: 16 << 20)
        let outcome = onServiceThread(server) { () -> [Bool] in
            server.send(OutboundMessage(binary: big), to: serverID)
            server.send(OutboundMessage(text: "reliable 1"), to: serverID)
            let frames = (1...3).map { server.sendLatest(OutboundMessage(text: "frame \($0)"), to: serverID) }
            server.send(OutboundMessage(text: "reliable 2"), to: serverID)
            return frames
        }
        #expect(outcome == [false, true, true])
        #expect(server.stats.messagesWrittenAtOnce == 1)

        let first = try #require(socket.readFrame())
        #expect(first.opcode == 2)
        #expect(first.payload.count == big.count)
        var rest: [String] = []
        while rest.count < 3, let frame = socket.readFrame() {
            rest.append(String(decoding: frame.payload, as: UTF8.self))
        }
        #expect(rest == ["reliable 1", "reliable 2", "frame 3"])
        #expect(server.stats.latestReplaced == 2)
    }

    @Test func aReplyFromTheReceiveCallbackFollowsThePongOwedForAPingInTheSameRead() throws {
        let h = try Harness(configure: { $0.writesAtOnce = true }, setup: { $0.echo = true })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        // One write, so lws reads the ping and the text together and echoes from that RECEIVE.
        socket.send(RawSocket.frame(fin: true, opcode: 9, payload: Array("ping".utf8))
                    + RawSocket.frame(fin: true, opcode: 1, payload: Array("hello".utf8)))
        let first = try #require(socket.readFrame())
        let second = try #require(socket.readFrame())
        #expect(first.opcode == 0xA && first.payload == Array("ping".utf8))
        #expect(second.opcode == 1 && second.payload == Array("hello".utf8))
        #expect(h.server.stats.messagesWrittenAtOnce == 0)
    }

    @Test func withWritesAtOnceOffEveryMessageWaitsForTheWriteableCallback() throws {
        let h = try Harness(configure: { $0.writesAtOnce = false })
        defer { h.stop() }
        let (replaced, id) = try sendFrames(2, h)
        #expect(replaced == [false, true])
        #expect(h.clientDelegate.waitForMessages(id, count: 1) == [.text("frame 2")])
        #expect(h.server.stats.messagesWrittenAtOnce == 0)
    }
}
