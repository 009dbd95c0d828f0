import Testing
@testable import WebSockets

@Suite("Client frame parser: bulk headers, fragments, limits, protocol errors")
struct ClientFrameParserTests {
    /// A stream with every frame shape: 7/16/64-bit lengths, fragments with a ping between
    /// them, a UTF-8 character split across fragments, empty messages, and a close.
    static let stream: [UInt8] = {
        var s: [UInt8] = []
        s += serverFrame(0x1, Array("héllo".utf8))
        s += serverFrame(0x2, (0..<300).map { UInt8($0 & 0xFF) })
        s += serverFrame(0x1, Array("ab".utf8) + [0xE2], fin: false)
        s += serverFrame(0x9, [7, 8, 9])
        s += serverFrame(0x0, [0x9C, 0x93], fin: false)
        s += serverFrame(0x0, Array("cd".utf8))
        s += serverFrame(0x1, [])
        s += serverFrame(0x2, [1, 2, 3], forceLength64: true)
        s += serverFrame(0xA, [])
        s += serverFrame(0x8, [0x03, 0xF5] + Array("room full".utf8))
        return s
    }()

    static let expected: [ParsedEvent] = [
        .text("héllo"), .binary((0..<300).map { UInt8($0 & 0xFF) }), .ping([7, 8, 9]), .text("ab✓cd"),
        .text(""), .binary([1, 2, 3]), .close(.tryAgainLater, "room full"),
    ]

    @Test func wholeStreamInOneChunk() {
        let (events, outcome) = parse([Self.stream])
        #expect(events == Self.expected)
        #expect(outcome == .closed)
    }

    @Test func streamSplitAtEveryByteBoundary() {
        for split in 1..<Self.stream.count {
            let (events, outcome) = parse([Array(Self.stream[..<split]), Array(Self.stream[split...])])
            #expect(events == Self.expected, "split at \(split)")
            #expect(outcome == .closed, "split at \(split)")
        }
    }

    @Test func streamOneByteAtATime() {
        let (events, outcome) = parse(Self.stream.map { [$0] })
        #expect(events == Self.expected)
        #expect(outcome == .closed)
    }

    @Test func bytesAfterTheCloseFrameAreIgnored() {
        let (events, outcome) = parse([serverFrame(0x8, [0x03, 0xE8]) + serverFrame(0x1, Array("late".utf8))])
        #expect(events == [.close(.normal, "")])
        #expect(outcome == .closed)
    }

    @Test func largeMessageWith64BitLengthSplitAcrossChunks() {
        let payload = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let frame = serverFrame(0x2, payload)
        #expect(frame[1] == 127)
        let chunks = stride(from: 0, to: frame.count, by: 4096).map { Array(frame[$0..<min($0 + 4096, frame.count)]) }
        let (events, outcome) = parse(chunks)
        #expect(events == [.binary(payload)])
        #expect(outcome == .needMore)
    }

    @Test func aMessageInsideOneChunkIsHandedOverInPlace() {
        let chunk = serverFrame(0x1, Array("in place".utf8)) + serverFrame(0x1, Array("twice".utf8))
        var parser = ClientFrameParser(maxMessageBytes: 1024)
        var inside: [Bool] = []
        chunk.withUnsafeBytes { bytes in
            let range = UInt(bitPattern: bytes.baseAddress)..<(UInt(bitPattern: bytes.baseAddress) + UInt(bytes.count))
            _ = parser.consume(bytes) { event in
                if case .text(let message) = event { inside.append(range.contains(UInt(bitPattern: message.baseAddress))) }
            }
        }
        #expect(inside == [true, true])
    }

    @Test(arguments: [
        (serverFrame(0x3, []), "reserved opcode 3"),
        (serverFrame(0xB, []), "reserved opcode 11"),
        (serverFrame(0x1, Array("x".utf8), rsv: 4), "reserved bits"),
        (serverFrame(0x1, Array("x".utf8), rsv: 1), "reserved bits"),
        (serverFrame(0x1, Array("x".utf8), mask: [1, 2, 3, 4]), "masked frame"),
        (serverFrame(0x0, Array("x".utf8)), "continuation frame without"),
        (serverFrame(0x1, Array("a".utf8), fin: false) + serverFrame(0x1, Array("b".utf8)), "new data frame inside"),
        (serverFrame(0x9, [], fin: false), "fragmented control frame"),
        (serverFrame(0x9, [UInt8](repeating: 0, count: 126)), "longer than 125"),
        (serverFrame(0x8, [0x03]), "1-byte payload"),
        (serverFrame(0x8, [0x03, 0xED]), "invalid close code 1005"),
        (serverFrame(0x8, [0x03, 0xE7]), "invalid close code 999"),
        ([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], "top bit"),
    ] as [([UInt8], String)])
    func protocolErrorsCloseWith1002(frame: [UInt8], why: String) {
        let (events, outcome) = parse([frame])
        #expect(events.isEmpty)
        guard case .failed(let code, let reason) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(code == .protocolError)
        #expect(reason.contains(why), "\(reason)")
    }

    @Test func aFailureStopsTheParser() {
        let (events, outcome) = parse([serverFrame(0x3, []), serverFrame(0x1, Array("after".utf8))])
        #expect(events.isEmpty)
        #expect(outcome == .failed(.protocolError, "reserved opcode 3"))
    }

    @Test func messagesOverTheCapCloseWith1009() {
        #expect(parse([serverFrame(0x1, Array(repeating: 0x61, count: 10))], maxMessageBytes: 10).0 == [.text("aaaaaaaaaa")])
        #expect(parse([serverFrame(0x1, Array(repeating: 0x61, count: 11))], maxMessageBytes: 10).1 == .failed(.messageTooBig, "message too big"))
        let fragmented = serverFrame(0x2, [1, 2, 3, 4, 5, 6], fin: false) + serverFrame(0x0, [7, 8, 9, 10, 11])
        #expect(parse([fragmented], maxMessageBytes: 10).1 == .failed(.messageTooBig, "message too big"))
        // A huge declared length fails at the header, before any payload arrives.
        let header: [UInt8] = [0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(parse([header], maxMessageBytes: 1 << 20).1 == .failed(.messageTooBig, "message too big"))
    }

    @Test func invalidUTF8ClosesWith1007() {
        #expect(parse([serverFrame(0x1, [0x61, 0xC0, 0x80])]).1 == .failed(.invalidPayload, "invalid UTF-8 in text message"))
        let split = serverFrame(0x1, [0xE2, 0x9C], fin: false) + serverFrame(0x0, [0x41])
        #expect(parse([split]).1 == .failed(.invalidPayload, "invalid UTF-8 in text message"))
        #expect(parse([serverFrame(0x8, [0x03, 0xE8, 0xFF])]).1 == .failed(.invalidPayload, "invalid UTF-8 in the close reason"))
        // Binary messages are not UTF-8 checked.
        #expect(parse([serverFrame(0x2, [0xC0, 0x80])]).0 == [.binary([0xC0, 0x80])])
    }

    @Test func closeCodesAServerMaySend() {
        for code: UInt16 in [1000, 1001, 1011, 1012, 1013, 1014, 3000, 4999] {
            let (events, outcome) = parse([serverFrame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("why".utf8))])
            #expect(events == [.close(CloseCode(rawValue: code), "why")])
            #expect(outcome == .closed)
        }
        #expect(parse([serverFrame(0x8, [])]).0 == [.close(nil, "")])
    }
}
