/// Rebuilds whole messages from the chunks libwebsockets delivers (one per fragment, and with
/// permessage-deflate one per inflated chunk), enforcing the size cap and UTF-8 validity.
struct MessageAssembler {
    let maxBytes: Int
    private var buffer: [UInt8] = []
    private var isBinary = false
    private var inMessage = false

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// What `appendInPlace` did with the latest chunk.
    enum InPlaceOutcome: Equatable {
        /// More chunks are needed.
        case incomplete
        /// A whole message went to the handler.
        case delivered
        /// The message grew past the cap; close with 1009.
        case tooBig
        /// A text message that is not valid UTF-8; close with 1007.
        case invalidUTF8
    }

    /// Adds one chunk. `binary` is read only on a message's first chunk; `final` ends the message.
    /// Relies on the final flag alone because lws may report "first" on several chunks of one frame.
    /// A finished message's bytes go to `deliver` where they lie (the chunk itself when one chunk
    /// is the whole message, else the reassembly buffer, reused), so no array or string is made
    /// per message. Text is validated as UTF-8 first.
    mutating func appendInPlace(
        _ chunk: UnsafeRawBufferPointer, binary: Bool, final: Bool,
        deliver: (UnsafeRawBufferPointer, _ isBinary: Bool) -> Void
    ) -> InPlaceOutcome {
        if !inMessage && final {
            guard chunk.count <= maxBytes else { return .tooBig }
            guard binary || UTF8Check.isValid(chunk) else { return .invalidUTF8 }
            deliver(chunk, binary)
            return .delivered
        }
        guard accumulate(chunk, binary: binary) else { return .tooBig }
        guard final else { return .incomplete }
        defer { reset() }
        let isBinary = self.isBinary
        return buffer.withUnsafeBytes { bytes in
            guard isBinary || UTF8Check.isValid(bytes) else { return .invalidUTF8 }
            deliver(bytes, isBinary)
            return .delivered
        }
    }

    /// Adds a chunk to the message being reassembled (starting one if none is), or drops the
    /// message and returns false when it would grow past `maxBytes`.
    private mutating func accumulate(_ chunk: UnsafeRawBufferPointer, binary: Bool) -> Bool {
        if !inMessage {
            inMessage = true
            isBinary = binary
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
        }
        guard buffer.count + chunk.count <= maxBytes else {
            reset()
            return false
        }
        buffer.append(contentsOf: chunk)
        return true
    }

    private mutating func reset() {
        inMessage = false
        buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
    }
}

/// FIFO of outbound messages with O(1) amortised pop.
struct OutboundQueue {
    private var items: [OutboundMessage] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

    mutating func append(_ message: OutboundMessage) { items.append(message) }

    /// The message `popFirst` would return, left in place.
    var first: OutboundMessage? { head < items.count ? items[head] : nil }

    mutating func popFirst() -> OutboundMessage? {
        guard head < items.count else { return nil }
        let message = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return message
    }

    mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}

/// A close the wrapper still has to send (it can only be sent from a writeable callback).
struct PendingClose {
    let code: CloseCode
    let reason: String
    /// Send before the queued messages instead of after them.
    let immediate: Bool
}

/// UTF-8 validation that skips ASCII eight bytes at a time and checks multi-byte sequences by
/// hand (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF). The standard library's
/// validator walks byte by byte and was a visible share of the load generator's time.
enum UTF8Check {
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return true }
        let p = base.assumingMemoryBound(to: UInt8.self)
        var i = 0
        while i < count {
            if i + 8 <= count, base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let lead = p[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard i + length <= count, (low...high).contains(p[i + 1]) else { return false }
            for k in 2..<length where p[i + k] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }
}
