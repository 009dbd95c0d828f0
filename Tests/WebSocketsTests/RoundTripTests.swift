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
            for case .opened(_, let request, _) in events { return request }
            return nil
        }
        #expect(opened?.path == "/ws")
        #expect(opened?.subprotocols == [TestProtocol.subprotocol])
        #expect(opened?.remoteAddress == "127.0.0.1")
    }

    @Test func queryAndOriginReachTheUpgradeRequest() throws {
        let h = try Harness()
        defer { h.stop() }
        let id = try h.client.connect(url: "ws://127.0.0.1:\(h.port)/ws?room=lobby&x=1", subprotocol: TestProtocol.subprotocol, origin: "http://example.test:1")
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let request = h.serverDelegate.events.wait { events -> UpgradeRequest? in
            for case .opened(_, let request, _) in events { return request }
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

    /// Raw DEFLATE (RFC 7692: sync flush, trailing 00 00 FF FF removed) of `compressibleText`,
    /// made once with Python's zlib (level 6, 15-bit window).
    static let deflatedCompressibleText: [UInt8] = {
        let hex = [
        "8cdc498e63451486d139abf0127c9bdf7e6f39054a5049598da8fd4bc0063831f320469f32ed7b14cde7d7ef1f8fe7e3",
        "c79f8f2f8f3f7e7cfbf9f7c7af5f5f7ffffc787cfbf7c397bf3e7efbfc6f4169416bc168c16a41b4e0a5056f2db8b4e0",
        "6628a764cb62cc62cd62ce62cf62d062d162d262d366d3f6df279b369b369b369b369b369b369b369b0e9b0e9b8effe9",
        "d974d874d874d874d874d874d874d974d974d974fd4dcaa6cba6cba6cba6cba6cba661d3b069d8346c1aff3cb169d834",
        "6c1a360d9bbed8f4c5a62f367db1e98b4d5ffecd67d3179bbed8f4c5a66f367db3e99b4ddf6cfa66d3379bbe3d48b1e9",
        "9b4ddf6c7ab1e9c5a6179b5e6c7ab1e9c5a6179b5e9e4ed9f462d39b4d6f36bdd9f466d39b4d6f36bdd9f466d3db23ff",
        "c1ccefa1ffe9a9ffe9b1ffe9b9ffe9c1ffe9c9ffe9d1ffe9d9ffe9e1ffe9ba27a472dd03541da8ea805507ae3a80d581",
        "ac0e68655b957155d6559957655f95815516569958656395915556569959656795a1559656995a656b95b155d656995b",
        "656f95c1551657995c657395d1555657995d657795e1559657995e657b95f155d657995f657f95015616589960658395",
        "115656589961658795215696589962658b953156d6589963658f95415616599964659395515656599965659795615696",
        "599966659b957156d6599967659f958156165a996865a3959156565a996965a795a156965a996a65abb5add6b65adb6a",
        "6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a7db00f76b01176b213e6ba07",
        "7b61079b6107bb6107db6107fb61071b62b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a",
        "6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5",
        "add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b6",
        "5adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dabb5add6b65adb6a6dab8dad36b6dad86a63ab8dad36b6dad86a",
        "63ab8dad36b6dad86a63ab8dad36b6dad86a63ab8dad36b6dad86a63ab8dad36b6dad86a63ab8dad36b6dad86a63ab8d",
        "ad3607a7170f8e2f1e9c5f3c39c0e8ba0747180fce301e1c623c38c578708cd1561b5b6d6cb5b1d5c6561b5b6d6cb5b1",
        "d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c656",
        "1b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d",
        "6cb5b1d5c6561b5b6d6cb5b1d5c6561b5b6d6cb5b1d5c6565b5b6d6db5b5d5d6565b5b6d6db5b5d5d6565b5b6d6db5b5",
        "d5d6565b5b6d6db5b5d5d6565b5b6d6db5b5d5d6565b5b6d6db5b5d5d6565b5b6d6db5b5d5d6565b5b6d6db5b5d5d656",
        "5b5b6d6db5b5d5d6565b5b6d6db5b5d5f6e0ced9c1a5b3835b6707d7ce4eee9db9eec1cdb383ab670777cf0e2e9fd96a",
        "6babadadb6b6dada6a6babadadb6b6dada6a6babadadb6b6dada6a6babadadb6b6dada6a6babadadb6b6dada6a6babad",
        "adb6b6dada6a6babadadb6b6dada6a6babadadb6b6dada6a6babadadb6b6dada6a6babadadb6b6dada6a6babadadb6b6",
        "dada6a6babadadb6b6dada6a6babadad165b2db65a6cb5d86ab1d562abc5568bad165b2db65a6cb5d86ab1d562abc556",
        "8bad165b2db65a6cb5d86ab1d562abc5568bad165b2db65a6cb5d86ab1d562abc5568bad165b2db65a6cb5d86ab1d562",
        "abc5568bad165b2db65a6cb5d86ab1d562abc5568bad165b2d072f851c3c1572f056c8c1632107af859c3c17e2ba070f",
        "861cbc1872f06488ad165b2db65a6cb5d86ab1d562abc5568bad165b2db65a6cb5d86ab1d562abc5568bad165b2db65a",
        "6cb5d86ab1d562abc5568bad165b2db65a6cb5d86ab1d562abc5568bad165b2db65a6cb5d86ab1d562abc556cbff5aed",
        "1f00",
        ].joined()
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }()
    static let compressibleText = (0..<600).map { "line \($0) of a compressible message\n" }.joined()

    @Test func compressedFragmentedMessageIsInflatedAndReassembled() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 64 * 1024; $0.permessageDeflate = true }, setup: { $0.echo = true })
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        let head = try #require(socket.handshake(extensions: "permessage-deflate; client_max_window_bits"))
        #expect(head.lowercased().contains("sec-websocket-extensions: permessage-deflate"))
        let deflated = Self.deflatedCompressibleText
        #expect(deflated.count > 1024)
        // Three fragments; RSV1 (compressed) only on the first, as RFC 7692 requires.
        let cuts = [0, 500, 1000, deflated.count]
        for part in 0..<3 {
            var frame = RawSocket.frame(fin: part == 2, opcode: part == 0 ? 1 : 0, payload: Array(deflated[cuts[part]..<cuts[part + 1]]))
            if part == 0 { frame[0] |= 0x40 }
            socket.send(frame)
        }
        let received = h.serverDelegate.events.wait { events -> InboundMessage? in
            for case .received(_, let message) in events { return message }
            return nil
        }
        #expect(received == .text(Self.compressibleText))
        // The echo (20 KiB, over the one-buffer limit of about 1 KiB) comes back whole and uncompressed.
        let echo = try #require(socket.readFrame())
        #expect(echo.fin)
        #expect(!echo.rsv1)
        #expect(String(decoding: echo.payload, as: UTF8.self) == Self.compressibleText)
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
        let compressible = [UInt8](repeating: 65, count: 800)
        let large = [UInt8](repeating: 66, count: 40_000)
        let h = try Harness(configure: { $0.permessageDeflate = true }, setup: { delegate in
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
