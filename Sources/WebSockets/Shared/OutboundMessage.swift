/// An immutable message to send, shared by many connections without copying (fan-out: encode once,
/// send to all).
///
/// The bytes are stored after `LWS_PRE` bytes of headroom that libwebsockets writes its frame header
/// into. That scratch area is only ever touched on a service thread, one write at a time, which is
/// why sharing one instance across connections of a server is safe.
public final class OutboundMessage: @unchecked Sendable {
    /// Whether this is a text (opcode 1) rather than binary (opcode 2) message.
    public let isText: Bool
    /// Payload size in bytes (headroom not counted).
    public let count: Int
    /// Headroom followed by the payload; the headroom is scratch space for libwebsockets.
    let storage: UnsafeMutablePointer<UInt8>

    /// A text message from a Swift string (always valid UTF-8).
    public convenience init(text: String) {
        self.init(bytes: text.utf8, isText: true)
    }
    /// A text message from bytes the caller promises are UTF-8 (e.g. JSON an encoder produced).
    public convenience init(utf8 bytes: some Collection<UInt8>) {
        self.init(bytes: bytes, isText: true)
    }
    /// A binary message.
    public convenience init(binary: some Collection<UInt8>) {
        self.init(bytes: binary, isText: false)
    }

    private init(bytes: some Collection<UInt8>, isText: Bool) {
        self.isText = isText
        let count = bytes.count
        self.count = count
        storage = .allocate(capacity: lwsPre + max(count, 1))
        storage.initialize(repeating: 0, count: lwsPre)
        let payload = UnsafeMutableBufferPointer(start: storage + lwsPre, count: count)
        _ = payload.initialize(from: bytes)
    }

    deinit { storage.deallocate() }

    /// The payload as an array (a copy; for tests and logging).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage + lwsPre, count: count)) }
}
