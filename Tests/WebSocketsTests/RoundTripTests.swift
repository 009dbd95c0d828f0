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
        h.client.send(OutboundMessage(text: ""), on: id)
        h.client.send(OutboundMessage(binary: []), on: id)
        let messages = h.clientDelegate.waitForMessages(id, count: 4)
        #expect(messages == [.text("héllo ✓"), .binary([0, 1, 2, 255]), .text(""), .binary([])])
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
        // The server answers with the size it received: an echo of a large message would come back
        // uncompressed, which the libwebsockets client cannot take (see WebSocketClient.init).
        let h = try Harness(configure: { $0.maxMessageBytes = 64 * 1024 }, setup: { delegate in
            delegate.onReceive = { server, id, message in
                server.send(OutboundMessage(text: "\(message.byteCount)"), to: id)
            }
        }, clientDeflate: true)
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        let head = try #require(socket.handshake(extensions: "permessage-deflate; client_max_window_bits"))
        #expect(head.lowercased().contains("sec-websocket-extensions: permessage-deflate"))

        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let big = (0..<600).map { "line \($0) of a compressible message\n" }.joined()
        #expect(big.utf8.count > 20_000)
        h.client.send(OutboundMessage(text: big), on: id)
        let binary = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        h.client.send(OutboundMessage(binary: binary), on: id)
        h.client.send(OutboundMessage(text: ""), on: id)
        let replies = h.clientDelegate.waitForMessages(id, count: 3)
        #expect(replies == [.text("\(big.utf8.count)"), .text("5000"), .text("0")])
        let received = h.serverDelegate.events.all.compactMap { event -> InboundMessage? in
            if case .received(_, let m) = event { m } else { nil }
        }
        #expect(received == [.text(big), .binary(binary), .text("")])
    }

    @Test func largeAndIncompressibleMessagesRoundTrip() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 1 << 20 }, setup: { $0.echo = true })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        var generator = SystemRandomNumberGenerator()
        let sizes = [70_000, 3_000, 300_000, 1]
        let payloads = sizes.map { size in (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        for payload in payloads { h.client.send(OutboundMessage(binary: payload), on: id) }
        let messages = h.clientDelegate.waitForMessages(id, count: payloads.count)
        #expect(messages == payloads.map { InboundMessage.binary($0) })
    }

    @Test func serverCompressesSmallMessagesAndSendsLargeOnesPlain() throws {
        let compressible = [UInt8](repeating: 65, count: 4000)
        let large = [UInt8](repeating: 66, count: 40_000)
        let h = try Harness(setup: { delegate in
            delegate.onOpen = { server, id in
                server.send(OutboundMessage(binary: compressible), to: id)
                server.send(OutboundMessage(binary: large), to: id)
                server.send(OutboundMessage(binary: []), to: id)
            }
        })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        _ = try #require(socket.handshake(extensions: "permessage-deflate; client_max_window_bits"))
        let first = try #require(socket.readFrame())
        #expect(first.opcode == 2)
        #expect(first.rsv1)
        #expect(first.payload.count < 200)
        let second = try #require(socket.readFrame())
        #expect(!second.rsv1)
        #expect(second.payload == large)
        let third = try #require(socket.readFrame())
        #expect(!third.rsv1)
        #expect(third.payload.isEmpty)
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

    @Test func silentPeerIsPingedThenDropped() throws {
        let h = try Harness(configure: {
            $0.pingInterval = 1
            $0.idleTimeout = 2
        })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        // This peer never answers: the server must ping it, then hang up (the read then ends).
        var opcodes: [UInt8] = []
        while let frame = socket.readFrame() { opcodes.append(frame.opcode) }
        #expect(opcodes.contains(9))
        let closed = h.serverDelegate.events.wait { events -> Bool? in
            events.contains { if case .closed = $0 { true } else { false } } ? true : nil
        }
        #expect(closed == true)
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
