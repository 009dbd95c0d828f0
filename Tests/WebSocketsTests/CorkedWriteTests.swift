import Foundation
import Glibc
import Testing
import TestSupport
@testable import WebSockets

/// Several pending messages to one connection leave in one write (CorkedWrite.swift): decoded
/// by the project's client and by a raw frame reader, across the length encodings; reliable order
/// and newest-frame-only kept behind a stalled reader; a write the kernel took only part of
/// resumes where it stopped.
@Suite("Sending: several messages in one write")
struct CorkedWriteTests {
    /// Polls the server's counters until `condition` holds (true) or 10 s pass (false).
    private func waitForStats(_ server: WebSocketServer, _ condition: (WebSocketServerStats) -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition(server.stats) { return true }
            usleep(10_000)
        }
        return false
    }

    /// The descriptor of this process's accepted socket on `port` whose peer is `client`.
    private static func acceptedSocket(port: Int, peerOf client: Int32) -> Int32? {
        func ports(_ fd: Int32) -> (local: UInt16, peer: UInt16)? {
            var local = sockaddr_in(), peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let gotLocal = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let gotPeer = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            guard gotLocal == 0, gotPeer == 0, local.sin_family == sa_family_t(AF_INET) else { return nil }
            return (UInt16(bigEndian: local.sin_port), UInt16(bigEndian: peer.sin_port))
        }
        guard let clientPorts = ports(client) else { return nil }
        return (0..<4096).first { fd in
            fd != client && ports(fd).map { $0.local == UInt16(port) && $0.peer == clientPorts.local } == true
        }
    }

    /// Payload sizes around each edge of the length encodings (7 bits, 16 bits, 64 bits), text and
    /// binary in turn, each filled with a pattern that names its index.
    private static let edgeSizes = [0, 1, 124, 125, 126, 127, 1000, 65_535, 65_536, 70_000, 2, 125, 126]

    private static func message(_ index: Int, size: Int) -> InboundMessage {
        if index.isMultiple(of: 2) {
            return .text(String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: size))
        }
        return .binary((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
    }

    private static func outbound(_ message: InboundMessage) -> OutboundMessage {
        switch message {
        case .text(let text): OutboundMessage(text: text)
        case .binary(let bytes): OutboundMessage(binary: bytes)
        }
    }

    @Test func theWriterFramesEachLengthEncodingAsRFC6455Says() {
        var writer = CorkedWriter()
        defer { writer.deallocate() }
        writer.append(OutboundMessage(text: String(repeating: "x", count: 125)))
        writer.append(OutboundMessage(binary: [UInt8](repeating: 7, count: 126)))
        writer.append(OutboundMessage(binary: [UInt8](repeating: 8, count: 65_135)))
        let bytes = writer.bytes
        #expect(Array(bytes[0..<2]) == [0x81, 125])
        #expect(Array(bytes[127..<131]) == [0x82, 126, 0, 126])
        let third = 127 + 4 + 126
        #expect(Array(bytes[third..<third + 4]) == [0x82, 126, 0xFE, 0x6F])
        #expect(bytes.count == third + 4 + 65_135)
        #expect(CorkedWriter.headerBytes(forPayload: 70_000) == 10)
    }

    @Test func messagesQueuedTogetherAreDecodedInOrderByTheClientAcrossLengthEdges() throws {
        let h = try Harness(configure: { $0.writesAtOnce = false })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let serverID = try #require(h.openedID())
        let server = h.server
        let expected = Self.edgeSizes.enumerated().map { Self.message($0.offset, size: $0.element) }
        let frame = Self.message(99, size: 300)
        _ = h.onServiceThread {
            for message in expected { server.send(Self.outbound(message), to: serverID) }
            server.sendLatest(Self.outbound(frame), to: serverID)
        }
        #expect(h.clientDelegate.waitForMessages(id, count: expected.count + 1) == expected + [frame])
        // Several of them shared a write: the small ones before 65,535 bytes, and the tail. (The
        // counters move just after the write, so the client can be faster than they are.)
        #expect(waitForStats(server) { $0.messagesSent == expected.count + 1 })
        #expect(server.stats.corkedWrites >= 2)
    }

    @Test func aRawReaderSeesOneFramePerMessageWithTheRightHeaders() throws {
        let h = try Harness(configure: { $0.writesAtOnce = false })
        defer { h.stop() }
        let (socket, serverID) = try h.rawConnection()
        let server = h.server
        let sizes = [125, 126, 0, 65_535 - 4 - 2 - 2, 1]
        _ = h.onServiceThread {
            for (index, size) in sizes.enumerated() { server.send(Self.outbound(Self.message(index, size: size)), to: serverID) }
        }
        for (index, size) in sizes.enumerated() {
            let frame = try #require(socket.readFrame())
            #expect(frame.fin && !frame.rsv1)
            #expect(frame.opcode == (index.isMultiple(of: 2) ? 1 : 2))
            switch Self.message(index, size: size) {
            case .text(let text): #expect(frame.payload == Array(text.utf8))
            case .binary(let bytes): #expect(frame.payload == bytes)
            }
        }
        #expect(waitForStats(server) { $0.corkedWrites >= 1 })
    }

    @Test func aStalledReaderGetsReliableMessagesInOrderAndOnlyTheNewestFrameInOneWrite() throws {
        let h = try Harness(configure: { $0.writesAtOnce = true })
        defer { h.stop() }
        let (socket, serverID) = try h.rawConnection()
        let server = h.server
        let big = [UInt8](repeating: 0x5a, count: 16 << 20)
        let replaced = h.onServiceThread { () -> [Bool] in
            server.send(OutboundMessage(binary: big), to: serverID)
            var replaced: [Bool] = []
            for round in 1...3 {
                server.send(OutboundMessage(text: "reliable \(round)"), to: serverID)
                replaced.append(server.sendLatest(OutboundMessage(text: "frame \(round)"), after: [OutboundMessage(text: "applied \(round)")], to: serverID))
            }
            return replaced
        }
        #expect(replaced == [false, true, true])
        let first = try #require(socket.readFrame())
        #expect(first.payload.count == big.count)
        var rest: [String] = []
        while rest.count < 7, let frame = socket.readFrame() { rest.append(String(decoding: frame.payload, as: UTF8.self)) }
        #expect(rest == ["reliable 1", "applied 1", "reliable 2", "applied 2", "reliable 3", "applied 3", "frame 3"])
        #expect(waitForStats(server) { $0.corkedWrites == 1 })
        #expect(server.stats.latestReplaced == 2)
    }

    @Test func aFrameWithItsLeadingMessagesLeavesInOneWriteWhenTheConnectionIsIdle() throws {
        let h = try Harness(configure: { $0.writesAtOnce = true })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let serverID = try #require(h.openedID())
        let server = h.server
        let replaced = h.onServiceThread {
            server.sendLatest(OutboundMessage(binary: [9, 9]), after: [OutboundMessage(text: "a1"), OutboundMessage(text: "a2")], to: serverID)
        }
        #expect(replaced == false)
        #expect(h.clientDelegate.waitForMessages(id, count: 3) == [.text("a1"), .text("a2"), .binary([9, 9])])
        #expect(server.stats.messagesWrittenAtOnce == 3)
        #expect(server.stats.corkedWrites == 1)
    }

    @Test func aWriteTheKernelTookOnlyPartOfResumesWhereItStopped() throws {
        let h = try Harness(configure: { $0.writesAtOnce = false; $0.reliableQueueLimit = 2048 })
        defer { h.stop() }
        let (socket, serverID) = try h.rawConnection()
        let server = h.server
        // The server's end of this connection lives in this process: its send buffer is made as
        // small as the kernel allows, so the kernel takes only part of a 64 KiB write.
        let serverSocket = try #require(Self.acceptedSocket(port: h.port, peerOf: socket.fd))
        var smallest: Int32 = 4096
        #expect(setsockopt(serverSocket, SOL_SOCKET, SO_SNDBUF, &smallest, socklen_t(MemoryLayout<Int32>.size)) == 0)
        // The reader is not reading: 100 messages of 16,000 bytes (four to a corked write) are
        // more than the two sockets hold, so a corked write is cut short and lws keeps its tail.
        let count = 100
        let payload: @Sendable (Int) -> [UInt8] = { index in (0..<16_000).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
        _ = h.onServiceThread {
            for index in 0..<count { server.send(OutboundMessage(binary: payload(index)), to: serverID) }
            server.sendLatest(OutboundMessage(text: "frame 1"), to: serverID)
        }
        #expect(waitForStats(server) { $0.writesLeftBuffered >= 1 })
        // Frames offered meanwhile replace one another; the reader then gets everything, in order.
        _ = h.onServiceThread {
            server.sendLatest(OutboundMessage(text: "frame 2"), to: serverID)
            server.sendLatest(OutboundMessage(text: "frame 3"), to: serverID)
        }
        for index in 0..<count {
            let frame = try #require(socket.readFrame())
            #expect(frame.opcode == 2 && frame.payload == payload(index), "message \(index)")
        }
        let last = try #require(socket.readFrame())
        #expect(String(decoding: last.payload, as: UTF8.self) == "frame 3")
        #expect(waitForStats(server) { $0.corkedWrites >= count / 4 })
    }

    @Test func withPermessageDeflateEachMessageKeepsItsOwnWrite() throws {
        let h = try Harness(configure: { $0.permessageDeflate = true })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake(extensions: "permessage-deflate")?.hasPrefix("HTTP/1.1 101") == true)
        let serverID = try #require(h.openedID())
        let server = h.server
        _ = h.onServiceThread {
            server.send(OutboundMessage(text: "one"), to: serverID)
            server.sendLatest(OutboundMessage(text: "two"), after: [OutboundMessage(text: "lead")], to: serverID)
        }
        for _ in 0..<3 { #expect(socket.readFrame() != nil) }
        #expect(waitForStats(server) { $0.messagesSent == 3 })
        #expect(server.stats.corkedWrites == 0)
    }
}
