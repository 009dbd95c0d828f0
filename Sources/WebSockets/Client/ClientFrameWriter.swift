/// Builds masked client-to-server frames (RFC 6455 §5.2–5.3) into a reusable byte buffer that
/// keeps `lwsPre` bytes of headroom, so several frames go out in one raw write.
struct ClientFrameWriter {
    /// WebSocket opcodes the client sends.
    enum Opcode: UInt8 {
        case text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
    }

    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Bytes of frames after the headroom.
    private(set) var count = 0

    init(initialCapacity: Int = 4096) {
        capacity = lwsPre + initialCapacity
        storage = .allocate(capacity: capacity)
    }

    /// Frees the buffer; the writer must not be used afterwards.
    func deallocate() { storage.deallocate() }

    /// Forgets the frames written so far, keeping the buffer.
    mutating func reset() { count = 0 }

    /// The frames written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage + lwsPre, count: count) }

    /// Appends one final (FIN) frame carrying `payload`, masked with `maskKey`.
    mutating func append(_ opcode: Opcode, payload: UnsafeRawBufferPointer, maskKey: UInt32) {
        let length = payload.count
        reserve(FrameHeader.maxBytes + length)
        var p = storage + lwsPre + count
        p += FrameHeader.write(opcode: opcode.rawValue, payloadLength: length, maskKey: maskKey, to: p)
        Self.mask(payload, with: maskKey, into: p)
        count = (p - (storage + lwsPre)) + length
    }

    /// Appends a close frame: the code, then the reason cut to fit 125 bytes on a character boundary.
    mutating func appendClose(_ code: CloseCode, reason: String, maskKey: UInt32) {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = Array(reason.utf8.prefix(123))
        while String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        payload += reasonBytes
        payload.withUnsafeBytes { append(.close, payload: $0, maskKey: maskKey) }
    }

    /// Makes room for `extra` more bytes (for `appendRaw`).
    mutating func reserveRaw(_ extra: Int) { reserve(extra) }

    /// Counts `written` bytes just stored after the current end.
    mutating func advance(_ written: Int) { count += written }

    private mutating func reserve(_ extra: Int) {
        let needed = lwsPre + count + extra
        guard needed > capacity else { return }
        let newCapacity = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: storage, count: lwsPre + count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    /// XORs `payload` with the repeating 4-byte key (first key byte = most significant), eight
    /// bytes at a time.
    static func mask(_ payload: UnsafeRawBufferPointer, with maskKey: UInt32, into destination: UnsafeMutablePointer<UInt8>) {
        let count = payload.count
        guard count > 0, let source = payload.baseAddress else { return }
        let keyBytes = withUnsafeBytes(of: maskKey.bigEndian) { Array($0) }
        // In memory order the key bytes repeat every four; a little- or big-endian load agrees.
        var wide: UInt64 = 0
        withUnsafeMutableBytes(of: &wide) { for i in 0..<8 { $0[i] = keyBytes[i & 3] } }
        let target = UnsafeMutableRawPointer(destination)
        var i = 0
        while i + 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ wide
            target.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            destination[i] = payload[i] ^ keyBytes[i & 3]
            i += 1
        }
    }
}

/// A small fast PRNG (xorshift64*) for mask keys, seeded from the system generator: RFC 6455 asks
/// for unpredictable masks, not cryptographic ones, and a syscall per frame would cost more than
/// the frame.
struct MaskKeyGenerator {
    private var state: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next() | 1
    }

    /// The next 4-byte mask key.
    mutating func next() -> UInt32 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return UInt32(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 32)
    }
}

extension ClientFrameWriter {
    /// Appends bytes as they are (the HTTP upgrade request).
    mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        reserveRaw(bytes.count)
        guard let base = bytes.baseAddress else { return }
        (storage + lwsPre + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        advance(bytes.count)
    }

    /// Appends the answer to the server's close frame: its code echoed, or an empty close if it had none.
    mutating func appendCloseEcho(_ code: CloseCode?, maskKey: UInt32) {
        if let code {
            appendClose(code, reason: "", maskKey: maskKey)
        } else {
            append(.close, payload: UnsafeRawBufferPointer(start: nil, count: 0), maskKey: maskKey)
        }
    }
}
