import Foundation
import Testing
@testable import WebSockets

@Suite("WebSocket round trips, reassembly and limits")
struct RoundTripTests {
    @Test func textAndBinaryRoundTrip() throws {
        let h = try Harness(setup: { $0.echo = true })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        h.client.send(OutboundMessage(text: "héllo ✓"), on: id)
        h.client.send(OutboundMessage(binary: [0, 1, 2, 255]), on: id)
        let messages = h.clientDelegate.waitForMessages(id, count: 2)
        #expect(messages == [.text("héllo ✓"), .binary([0, 1, 2, 255])])
        let opened = h.serverDelegate.events.wait { events -> UpgradeRequest? in
            for case .opened(_, let request) in events { return request }
            return nil
        }
        #expect(opened?.path == "/ws")
        #expect(opened?.subprotocols == ["scrollcast.v1"])
        #expect(opened?.remoteAddress == "127.0.0.1")
    }

    @Test func queryAndOriginReachTheUpgradeRequest() throws {
        let h = try Harness()
        defer { h.stop() }
        let id = try h.client.connect(url: "ws://127.0.0.1:\(h.port)/ws?room=lobby&x=1", origin: "http://example.test:1")
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let request = h.serverDelegate.events.wait { events -> UpgradeRequest? in
            for case .opened(_, let request) in events { return request }
            return nil
        }
        #expect(request?.query == "room=lobby&x=1")
        #expect(request?.origin == "http://example.test:1")
    }

    @Test func manyFragmentsAreReassembledIntoOneMessage() throws {
        let h = try Harness(setup: { $0.echo = true })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        let head = try #require(socket.handshake())
        #expect(head.hasPrefix("HTTP/1.1 101"))
        // 40 fragments, split so that a multi-byte character straddles fragment borders.
        let text = String(repeating: "aé✓𝄞", count: 30)
        let bytes = Array(text.utf8)
        let pieces = stride(from: 0, to: bytes.count, by: 7).map { Array(bytes[$0..<min($0 + 7, bytes.count)]) }
        for (index, piece) in pieces.enumerated() {
            socket.send(RawSocket.frame(fin: index == pieces.count - 1, opcode: index == 0 ? 1 : 0, payload: piece))
        }
        let echoed = try #require(socket.readFrame())
        #expect(echoed.opcode == 1)
        #expect(echoed.fin)
        #expect(String(decoding: echoed.payload, as: UTF8.self) == text)
        // Binary too, with an empty fragment in the middle.
        socket.send(RawSocket.frame(fin: false, opcode: 2, payload: [1, 2]))
        socket.send(RawSocket.frame(fin: false, opcode: 0, payload: []))
        socket.send(RawSocket.frame(fin: true, opcode: 0, payload: [3]))
        let binary = try #require(socket.readFrame())
        #expect(binary.opcode == 2)
        #expect(binary.payload == [1, 2, 3])
        let received = h.serverDelegate.events.all.compactMap { event -> InboundMessage? in
            if case .received(_, let m) = event { m } else { nil }
        }
        #expect(received == [.text(text), .binary([1, 2, 3])])
    }

    @Test func permessageDeflateIsNegotiatedAndLargeCompressedMessagesReassemble() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 64 * 1024; $0.permessageDeflate = true }, setup: { $0.echo = true })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        let head = try #require(socket.handshake(extensions: "permessage-deflate; client_max_window_bits"))
        #expect(head.lowercased().contains("sec-websocket-extensions: permessage-deflate"))

        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let big = (0..<600).map { "line \($0) of a compressible message\n" }.joined()
        #expect(big.utf8.count > 10_000)
        h.client.send(OutboundMessage(text: big), on: id)
        let binary = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        h.client.send(OutboundMessage(binary: binary), on: id)
        let messages = h.clientDelegate.waitForMessages(id, count: 2)
        #expect(messages == [.text(big), .binary(binary)])
    }

    @Test func oversizedMessageClosesWith1009() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 1000 })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        h.client.send(OutboundMessage(text: String(repeating: "x", count: 1000)), on: id)
        h.client.send(OutboundMessage(text: String(repeating: "y", count: 1001)), on: id)
        let close = h.clientDelegate.waitForClose(id)
        #expect(close?.0 == .messageTooBig)
        #expect(close?.1 == "message too big")
        let serverClose = h.serverDelegate.events.wait { events -> CloseCode? in
            for case .closed(_, let code, _) in events { return code }
            return nil
        }
        #expect(serverClose == .messageTooBig)
        // The message exactly at the cap was delivered.
        let delivered = h.serverDelegate.events.all.contains { event in
            if case .received(_, .text(let t)) = event { t.utf8.count == 1000 } else { false }
        }
        #expect(delivered)
    }

    @Test func oversizedFragmentedMessageClosesWith1009() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 100 })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        for index in 0..<5 {
            socket.send(RawSocket.frame(fin: index == 4, opcode: index == 0 ? 2 : 0, payload: [UInt8](repeating: 7, count: 30)))
        }
        let frame = try #require(socket.readFrame())
        #expect(frame.opcode == 8)
        #expect(frame.payload.prefix(2) == [0x03, 0xF1])  // 1009
        #expect(String(decoding: frame.payload.dropFirst(2), as: UTF8.self) == "message too big")
    }

    @Test func invalidUTF8ClosesWith1007() throws {
        let h = try Harness()
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        socket.send(RawSocket.frame(fin: false, opcode: 1, payload: Array("ok ".utf8)))
        socket.send(RawSocket.frame(fin: true, opcode: 0, payload: [0xC3, 0x28]))
        let frame = try #require(socket.readFrame())
        #expect(frame.opcode == 8)
        #expect(frame.payload.prefix(2) == [0x03, 0xEF])  // 1007
        let received = h.serverDelegate.events.all.contains { if case .received = $0 { true } else { false } }
        #expect(!received)
    }
}
