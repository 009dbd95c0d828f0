import Testing
@testable import WebSockets

/// The one RFC 6455 header writer (Shared/FrameHeader.swift) at each edge of the length
/// encodings, masked and not, byte for byte; and the server's corked writer and the client's
/// frame writer put exactly its bytes in front of their payloads.
@Suite("Frame header: one writer for server and client")
struct FrameHeaderTests {
    /// The header RFC 6455 §5.2 gives, spelled out: FIN + opcode, mask bit + length field, the
    /// extended length (network order), then the key.
    private static func expected(opcode: UInt8, length: Int, maskKey: UInt32?) -> [UInt8] {
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        var bytes: [UInt8] = [0x80 | opcode]
        switch length {
        case 125: bytes += [maskBit | 125]
        case 126: bytes += [maskBit | 126, 0x00, 0x7E]
        case 65_535: bytes += [maskBit | 126, 0xFF, 0xFF]
        case 65_536: bytes += [maskBit | 127, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00]
        default: Issue.record("no spelled-out header for \(length)")
        }
        if maskKey != nil { bytes += [0xA1, 0xB2, 0xC3, 0xD4] }
        return bytes
    }

    private static func written(opcode: UInt8, length: Int, maskKey: UInt32?) -> [UInt8] {
        // Filled with a marker, so a byte written past the returned count shows.
        var buffer = [UInt8](repeating: 0xEE, count: FrameHeader.maxBytes + 2)
        let count = buffer.withUnsafeMutableBufferPointer {
            FrameHeader.write(opcode: opcode, payloadLength: length, maskKey: maskKey, to: $0.baseAddress!)
        }
        #expect(buffer[count...].allSatisfy { $0 == 0xEE }, "nothing written past the header")
        #expect(count == FrameHeader.byteCount(payload: length, masked: maskKey != nil))
        return Array(buffer[..<count])
    }

    @Test(arguments: [125, 126, 65_535, 65_536], [nil, UInt32(0xA1B2_C3D4)])
    func eachLengthEdgeIsWrittenAsTheRFCSpellsIt(length: Int, maskKey: UInt32?) {
        for opcode: UInt8 in [0x1, 0x2, 0x8] {
            #expect(Self.written(opcode: opcode, length: length, maskKey: maskKey)
                == Self.expected(opcode: opcode, length: length, maskKey: maskKey))
        }
    }

    @Test(arguments: [0, 125, 126, 65_531, 65_535, 65_536])
    func bothSidesPutTheSharedHeaderInFrontOfThePayload(length: Int) {
        let payload = [UInt8](repeating: 0x5A, count: length)
        let unmasked = Self.written(opcode: 0x2, length: length, maskKey: nil)
        #expect(CorkedWriter.headerBytes(forPayload: length) == unmasked.count)
        // A corked write holds at most maxCorkedBytes, so it never carries a 64-bit length
        // (the larger messages go through lws_write alone).
        if CorkedWriter.framedBytes(OutboundMessage(binary: payload)) <= CorkedWriter.maxCorkedBytes {
            var corked = CorkedWriter()
            defer { corked.deallocate() }
            corked.append(OutboundMessage(binary: payload))
            #expect(Array(corked.bytes.prefix(unmasked.count)) == unmasked)
            #expect(corked.bytes.count == unmasked.count + length)
        }

        var client = ClientFrameWriter(initialCapacity: 16)
        defer { client.deallocate() }
        payload.withUnsafeBytes { client.append(.binary, payload: $0, maskKey: 0xA1B2_C3D4) }
        let masked = Self.written(opcode: 0x2, length: length, maskKey: 0xA1B2_C3D4)
        #expect(Array(client.bytes.prefix(masked.count)) == masked)
        #expect(client.bytes.count == masked.count + length)
    }
}
