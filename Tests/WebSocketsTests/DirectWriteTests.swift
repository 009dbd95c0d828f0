import Foundation
import Glibc
import Testing
import TestSupport
@testable import WebSockets

/// Messages written at once to an idle connection (DirectWrite.swift), and everything that must
/// still wait: a busy connection keeps latest-only frames and reliable order, and a reply from a
/// connection's own RECEIVE callback goes out after the pong lws owes it.
@Suite("Sending: written at once when idle")
struct DirectWriteTests {
    /// Sends `count` frames with `sendLatest` from one service-thread block to a freshly opened
    /// client connection; what each call returned (replaced or not), and the client's id.
    private func sendFrames(_ count: Int, _ h: Harness) throws -> (replaced: [Bool]?, client: ConnectionID) {
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let serverID = try #require(h.openedID())
        let server = h.server
        let replaced = h.onServiceThread {
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
        let (socket, serverID) = try h.rawConnection()
        let server = h.server
        // More than the socket buffers of both ends hold while the client does not read: the
        // kernel takes part of it at once and lws keeps the rest, so the connection is busy.
        let big = [UInt8](repeating: 0x5a, count: 16 << 20)
        let outcome = h.onServiceThread { () -> [Bool] in
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

    @Test func whileTheLoopIsBehindFramesWaitInTheLatestSlotAndMergeAgain() throws {
        let h = try Harness(configure: { $0.writesAtOnce = true; $0.writeAtOnceLatenessLimitMilliseconds = 4 })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let serverID = try #require(h.openedID())
        let server = h.server
        // A timer due in 1 ms while the service thread is held for 30 ms fires about 29 ms late: the
        // loop is behind, so the frames sent from it wait in the slot and only the newest leaves.
        let late = EventCollector<[Bool]>()
        server.execute {
            server.schedule(afterMilliseconds: 1) {
                late.append((1...3).map { server.sendLatest(OutboundMessage(text: "late \($0)"), to: serverID) })
            }
            usleep(30_000)
        }
        #expect(late.wait { $0.first } == [false, true, true])
        #expect(h.clientDelegate.waitForMessages(id, count: 1) == [.text("late 3")])
        #expect(server.stats.messagesWrittenAtOnce == 0)
        // The next timer that fires on time ends it: written at once again, none skipped. (On a
        // loaded machine a timer may itself fire late; such attempts send nothing and are retried.)
        var result: [Bool]?
        for _ in 0..<50 where result == nil {
            let onTime = EventCollector<[Bool]?>()
            server.execute {
                server.schedule(afterMilliseconds: 0) {
                    onTime.append(server.loopIsBehind ? nil
                        : (1...2).map { server.sendLatest(OutboundMessage(text: "on time \($0)"), to: serverID) })
                }
            }
            result = onTime.wait { $0.first } ?? nil
        }
        #expect(result == [false, false])
        #expect(h.clientDelegate.waitForMessages(id, count: 3) == [.text("late 3"), .text("on time 1"), .text("on time 2")])
        #expect(server.stats.messagesWrittenAtOnce == 2)
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
