/// The RFC 6455 §5.2 header of one final (FIN) frame, written in place: the one header writer
/// of both sides. The server's corked writes (CorkedWrite.swift) send unmasked frames, the client
/// (ClientFrameWriter.swift) masked ones; only the mask bit and the 4-byte key after the length
/// differ. The payload length goes in 7 bits, 7 + 16 or 7 + 64 (network byte order).
///
/// Both callers are on the send path: no allocation, and always inlined into them.
enum FrameHeader {
    /// The longest header: 2 bytes, a 64-bit length and a mask key.
    static let maxBytes = 14

    /// Bytes of the header for a payload of `length` bytes, with or without a mask key.
    @inline(__always)
    static func byteCount(payload length: Int, masked: Bool) -> Int {
        (length < 126 ? 2 : length <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0)
    }

    /// Writes at `destination` the header of a final frame with `opcode` and a payload of `length`
    /// bytes, masked with `maskKey` (first key byte = most significant) when it is not nil; returns
    /// the bytes written (`byteCount(payload:masked:)`). The caller has room for `maxBytes`.
    @inline(__always)
    static func write(opcode: UInt8, payloadLength length: Int, maskKey: UInt32?,
                      to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        destination[0] = 0x80 | opcode
        var written: Int
        if length < 126 {
            destination[1] = maskBit | UInt8(length)
            written = 2
        } else if length <= 0xFFFF {
            destination[1] = maskBit | 126
            destination[2] = UInt8(length >> 8)
            destination[3] = UInt8(length & 0xFF)
            written = 4
        } else {
            destination[1] = maskBit | 127
            // Most significant byte first. Truncating conversions, each shift's type named: the
            // masked, mixed-literal form took the type checker 300 ms an expression.
            for i in 0..<8 { destination[2 + i] = UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(56 - 8 * i)) }
            written = 10
        }
        if let maskKey {
            for i in 0..<4 { destination[written + i] = UInt8(truncatingIfNeeded: maskKey >> UInt32(24 - 8 * i)) }
            written += 4
        }
        return written
    }
}
