/// Rebuilds whole messages from the chunks libwebsockets delivers (one per fragment, and with
/// permessage-deflate one per inflated chunk), enforcing the size cap and UTF-8 validity.
struct MessageAssembler {
    /// What the latest chunk completed.
    enum Outcome: Equatable {
        /// More chunks are needed.
        case incomplete
        /// A whole message.
        case message(InboundMessage)
        /// The message grew past the cap; close with 1009.
        case tooBig
        /// A text message that is not valid UTF-8; close with 1007.
        case invalidUTF8
    }

    let maxBytes: Int
    private var buffer: [UInt8] = []
    private var isBinary = false
    private var inMessage = false

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// Adds one chunk. `binary` is read only on a message's first chunk; `final` ends the message.
    /// Relies on the final flag alone because lws may report "first" on several chunks of one frame.
    mutating func append(_ chunk: UnsafeRawBufferPointer, binary: Bool, final: Bool) -> Outcome {
        if !inMessage {
            inMessage = true
            isBinary = binary
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
        }
        guard buffer.count + chunk.count <= maxBytes else {
            reset()
            return .tooBig
        }
        buffer.append(contentsOf: chunk)
        guard final else { return .incomplete }
        let bytes = buffer
        reset()
        if isBinary { return .message(.binary(bytes)) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .invalidUTF8 }
        return .message(.text(text))
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

/// Decodes the payload of a received close frame: 2-byte big-endian code, then a UTF-8 reason.
func parseClosePayload(_ payload: UnsafeRawBufferPointer) -> (CloseCode?, String) {
    guard payload.count >= 2 else { return (nil, "") }
    let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
    let reason = String(decoding: payload[2...], as: UTF8.self)
    return (CloseCode(rawValue: code), reason)
}
