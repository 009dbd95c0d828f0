import Testing
@testable import WebSockets

@Suite("Client frame writer: masked frames, every length encoding")
struct ClientFrameWriterTests {
    /// Decodes one masked frame: opcode, FIN, the length field used, and the unmasked payload.
    static func decode(_ bytes: [UInt8]) -> (fin: Bool, opcode: UInt8, lengthField: UInt8, payload: [UInt8])? {
        guard bytes.count >= 2, bytes[1] & 0x80 != 0 else { return nil }
        let field = bytes[1] & 0x7F
        var length = Int(field), offset = 2
        if field == 126 { length = Int(bytes[2]) << 8 | Int(bytes[3]); offset = 4 }
        if field == 127 { length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10 }
        let mask = Array(bytes[offset..<(offset + 4)])
        let payload = bytes[(offset + 4)...].enumerated().map { $0.element ^ mask[$0.offset & 3] }
        guard payload.count == length else { return nil }
        return (bytes[0] & 0x80 != 0, bytes[0] & 0x0F, field, payload)
    }

    @Test(arguments: [(0, UInt8(0)), (1, 1), (125, 125), (126, 126), (65_535, 126), (65_536, 127), (70_001, 127)])
    func lengthsAreEncodedMinimallyAndPayloadsMaskedExactly(count: Int, field: UInt8) {
        var writer = ClientFrameWriter(initialCapacity: 16)
        defer { writer.deallocate() }
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        payload.withUnsafeBytes { writer.append(.binary, payload: $0, maskKey: 0xA1B2_C3D4) }
        let frame = Self.decode(Array(writer.bytes))
        #expect(frame?.fin == true)
        #expect(frame?.opcode == 0x2)
        #expect(frame?.lengthField == field)
        #expect(frame?.payload == payload)
        // The key goes on the wire most significant byte first.
        let keyOffset = field == 127 ? 10 : field == 126 ? 4 : 2
        #expect(Array(writer.bytes)[keyOffset..<(keyOffset + 4)] == [0xA1, 0xB2, 0xC3, 0xD4])
    }

    @Test func severalFramesShareOneBufferAndResetEmptiesIt() {
        var writer = ClientFrameWriter(initialCapacity: 4)
        defer { writer.deallocate() }
        Array("ab".utf8).withUnsafeBytes { writer.append(.text, payload: $0, maskKey: 1) }
        writer.appendClose(.normal, reason: String(repeating: "é", count: 100), maskKey: 2)
        let bytes = Array(writer.bytes)
        let first = Self.decode(Array(bytes[..<8]))
        #expect(first?.payload == Array("ab".utf8))
        let close = Self.decode(Array(bytes[8...]))
        #expect(close?.opcode == 0x8)
        // 2 code bytes + the reason cut at 123 bytes on a character boundary (61 × "é" = 122 bytes).
        #expect(close?.payload.count == 124)
        #expect(close.map { String(validating: $0.payload[2...], as: UTF8.self) != nil } == true)
        writer.reset()
        #expect(writer.count == 0)
    }

    @Test func maskKeysVary() {
        var keys = MaskKeyGenerator()
        let drawn = Set((0..<1000).map { _ in keys.next() })
        #expect(drawn.count > 990)
    }
}
