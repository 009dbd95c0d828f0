/// Reads server-to-client WebSocket frames (RFC 6455 §5) from raw socket chunks: headers in bulk,
/// fragments reassembled, control frames handled between fragments, no extensions negotiated.
///
/// A message lying wholly inside one chunk is handed over where it lies (no copy); only messages
/// split across chunks or fragments are gathered in the `MessageAssembler`'s buffer.
struct ClientFrameParser {
    /// Something the connection must act on.
    enum Event {
        /// A complete text message (valid UTF-8), readable only during the call.
        case text(UnsafeRawBufferPointer)
        /// A complete binary message, readable only during the call.
        case binary(UnsafeRawBufferPointer)
        /// A ping; answer with a pong carrying this payload.
        case ping(UnsafeRawBufferPointer)
        /// The peer's close frame: its code (nil if none) and reason. Parsing stops after it.
        case close(CloseCode?, String)
    }

    /// What a `consume` call ended with.
    enum Outcome: Equatable {
        /// All bytes used; more may come.
        case needMore
        /// A close frame arrived; bytes after it are ignored.
        case closed
        /// The peer broke the protocol: close with this code and reason.
        case failed(CloseCode, String)
    }

    private let maxMessageBytes: Int
    private var assembler: MessageAssembler

    // Frame header being gathered when a chunk ends inside it.
    private var headerStash: [UInt8] = []
    // The frame whose payload is being read.
    private var inFrame = false
    private var opcode: UInt8 = 0
    private var fin = false
    private var remaining = 0
    private var control: [UInt8] = []
    // A fragmented data message in progress.
    private var messageOpen = false
    private var messageIsBinary = false
    private var messageBytes = 0
    private var stopped: Outcome?

    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
        self.assembler = MessageAssembler(maxBytes: maxMessageBytes)
    }

    /// Parses `chunk`, calling `handle` for each complete message and control frame in order.
    mutating func consume(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) -> Void) -> Outcome {
        if let stopped { return stopped }
        let outcome = parse(chunk, handle)
        if outcome != .needMore { stopped = outcome }
        return outcome
    }

    private mutating func parse(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) -> Void) -> Outcome {
        var offset = 0
        let count = chunk.count
        while true {
            if !inFrame {
                if offset == count { return .needMore }
                guard let header = takeHeader(chunk, &offset) else { return .needMore }
                if let failure = begin(header) { return failure }
            }
            let available = min(remaining, count - offset)
            let piece = UnsafeRawBufferPointer(rebasing: chunk[offset..<(offset + available)])
            offset += available
            remaining -= available
            let frameDone = remaining == 0
            if opcode >= 8 {
                control.append(contentsOf: piece)
                if frameDone {
                    inFrame = false
                    if let outcome = finishControl(handle) { return outcome }
                }
            } else {
                if available > 0 || frameDone {
                    if let failure = deliver(piece, final: fin && frameDone, handle) { return failure }
                }
                if frameDone {
                    inFrame = false
                    if fin { messageOpen = false; messageBytes = 0 }
                }
            }
            if offset == count && inFrame { return .needMore }
        }
    }

    /// A decoded frame header.
    private struct Header {
        var fin: Bool
        var rsv: UInt8
        var opcode: UInt8
        var masked: Bool
        var length: UInt64
    }

    /// Reads a whole header from the chunk (or the stash plus the chunk); nil when the chunk ends first.
    private mutating func takeHeader(_ chunk: UnsafeRawBufferPointer, _ offset: inout Int) -> Header? {
        if headerStash.isEmpty, let (header, size) = Self.decodeHeader(UnsafeRawBufferPointer(rebasing: chunk[offset...])) {
            offset += size
            return header
        }
        // Slow path: the header straddles chunks; gather it byte by byte (at most 14 bytes).
        while offset < chunk.count {
            headerStash.append(chunk[offset])
            offset += 1
            let decoded = headerStash.withUnsafeBytes { Self.decodeHeader($0) }
            if let (header, _) = decoded {
                headerStash.removeAll(keepingCapacity: true)
                return header
            }
        }
        return nil
    }

    /// The header at the start of `bytes` and its size, or nil if `bytes` holds only part of it.
    private static func decodeHeader(_ bytes: UnsafeRawBufferPointer) -> (Header, Int)? {
        guard bytes.count >= 2 else { return nil }
        let b0 = bytes[0], b1 = bytes[1]
        var header = Header(fin: b0 & 0x80 != 0, rsv: b0 & 0x70, opcode: b0 & 0x0F, masked: b1 & 0x80 != 0, length: UInt64(b1 & 0x7F))
        var size = 2
        if header.length == 126 {
            guard bytes.count >= 4 else { return nil }
            header.length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            size = 4
        } else if header.length == 127 {
            guard bytes.count >= 10 else { return nil }
            var length: UInt64 = 0
            for i in 2..<10 { length = length << 8 | UInt64(bytes[i]) }
            header.length = length
            size = 10
        }
        if header.masked {
            guard bytes.count >= size + 4 else { return nil }
            size += 4
        }
        return (header, size)
    }

    /// Validates a header and sets up reading its payload; a failure if the frame is not allowed.
    private mutating func begin(_ header: Header) -> Outcome? {
        guard header.rsv == 0 else { return .failed(.protocolError, "reserved bits set without a negotiated extension") }
        guard !header.masked else { return .failed(.protocolError, "masked frame from the server") }
        guard header.length & (1 << 63) == 0 else { return .failed(.protocolError, "64-bit frame length with the top bit set") }
        switch header.opcode {
        case 0x8, 0x9, 0xA:
            guard header.fin else { return .failed(.protocolError, "fragmented control frame") }
            guard header.length <= 125 else { return .failed(.protocolError, "control frame longer than 125 bytes") }
            control.removeAll(keepingCapacity: true)
        case 0x0:
            guard messageOpen else { return .failed(.protocolError, "continuation frame without a message to continue") }
        case 0x1, 0x2:
            guard !messageOpen else { return .failed(.protocolError, "new data frame inside a fragmented message") }
            messageOpen = true
            messageIsBinary = header.opcode == 0x2
            messageBytes = 0
        default:
            return .failed(.protocolError, "reserved opcode \(header.opcode)")
        }
        if header.opcode < 8 {
            guard header.length <= UInt64(maxMessageBytes - messageBytes) else {
                return .failed(.messageTooBig, "message too big")
            }
            messageBytes += Int(header.length)
        }
        opcode = header.opcode
        fin = header.fin
        remaining = Int(header.length)
        inFrame = true
        return nil
    }

    private mutating func deliver(_ piece: UnsafeRawBufferPointer, final: Bool, _ handle: (Event) -> Void) -> Outcome? {
        let outcome = assembler.appendInPlace(piece, binary: messageIsBinary, final: final) { bytes, isBinary in
            handle(isBinary ? .binary(bytes) : .text(bytes))
        }
        switch outcome {
        case .incomplete, .delivered: return nil
        case .tooBig: return .failed(.messageTooBig, "message too big")
        case .invalidUTF8: return .failed(.invalidPayload, "invalid UTF-8 in text message")
        }
    }

    /// Acts on a complete control frame; an outcome if parsing must stop.
    private mutating func finishControl(_ handle: (Event) -> Void) -> Outcome? {
        switch opcode {
        case 0x9:
            control.withUnsafeBytes { handle(.ping($0)) }
            return nil
        case 0xA:
            return nil
        default:
            guard control.count != 1 else { return .failed(.protocolError, "close frame with a 1-byte payload") }
            guard control.count >= 2 else {
                handle(.close(nil, ""))
                return .closed
            }
            let code = UInt16(control[0]) << 8 | UInt16(control[1])
            guard Self.isValidReceivedCloseCode(code) else { return .failed(.protocolError, "invalid close code \(code)") }
            guard let reason = String(validating: control[2...], as: UTF8.self) else {
                return .failed(.invalidPayload, "invalid UTF-8 in the close reason")
            }
            handle(.close(CloseCode(rawValue: code), reason))
            return .closed
        }
    }

    /// RFC 6455 §7.4: codes a peer may send (1004–1006 and 1015 are reserved for local use).
    static func isValidReceivedCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
