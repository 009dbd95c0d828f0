internal import CWebSocketsShim
import Dispatch
import Synchronization

/// An HTTP response whose head and body come later, in pieces, from any thread (a worker
/// reading a database, say), while the server's service thread writes them to the socket as it
/// becomes writable. The body goes out with `Transfer-Encoding: chunked`, so a client can tell a
/// response cut short (`abort`, no final chunk) from a complete one.
///
/// Backpressure: `write` blocks its caller while `bufferLimit` bytes wait that the client has not
/// taken yet, so a slow reader holds the producer back instead of making the server keep the
/// whole body.
///
/// The service thread only hands each piece to the socket: the producer frames it (libwebsockets'
/// headroom, the chunk's size line, the closing CRLF) into a buffer the service thread gives back
/// once written, so in the steady state the service thread neither allocates, copies nor frees a
/// piece. A piece of 64 KiB is above the server's mmap threshold (16 KiB): a fresh buffer per piece
/// cost the service thread a mapping, its page faults and an unmapping (with a TLB shootdown of
/// the process's other threads) each time, about half its time per piece.
public final class HTTPResponseStream: Sendable {
    /// Bytes a stream may hold unsent before `write` waits (one piece may go past it).
    public let bufferLimit: Int
    /// False for a HEAD request: only the head goes out, and a producer can skip the body.
    public let wantsBody: Bool

    enum Item {
        case head(status: Int, contentType: String, headers: [(String, String)])
        /// `framed` holds libwebsockets' headroom, then what goes on the wire; `bytes`: the body bytes.
        case piece(framed: [UInt8], bytes: Int)
        case end
        case abort
    }

    private struct State {
        /// Few at a time (the buffer limit is a handful of pieces), so a plain array serves.
        var items: [Item] = []
        var buffered = 0
        var peakBuffered = 0
        /// The service thread found nothing to write and waits for a wake-up (so it does at first).
        var consumerWaiting = true
        var producerWaiting = false
        var cancelled = false
        var ended = false
        /// Framed pieces the service thread has written, for the producer to fill again.
        var spare: [[UInt8]] = []
    }

    /// Written pieces kept for reuse: as many as the buffer limit lets wait, and one in hand.
    private var spareLimit: Int { bufferLimit / (16 * 1024) + 2 }

    private let state = Mutex(State())
    private let space = DispatchSemaphore(value: 0)
    /// Set by the server: asks the service thread to write what is queued.
    let wake: @Sendable () -> Void

    init(bufferLimit: Int, wantsBody: Bool, wake: @escaping @Sendable () -> Void) {
        self.bufferLimit = bufferLimit
        self.wantsBody = wantsBody
        self.wake = wake
    }

    /// Sends the status line and headers (Content-Type, the given ones, then
    /// `Transfer-Encoding: chunked`). Call once, first.
    public func begin(status: Int, contentType: String, headers: [(String, String)] = []) {
        enqueue(.head(status: status, contentType: contentType, headers: headers), bytes: 0)
    }

    /// Queues a piece of the body; blocks while the stream holds `bufferLimit` unsent bytes.
    /// Returns false once the client is gone (the producer should stop).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        guard wantsBody, !bytes.isEmpty else { return !isCancelled }
        while true {
            let mustWait = state.withLock { state -> Bool in
                if state.cancelled || state.buffered < bufferLimit { return false }
                state.producerWaiting = true
                return true
            }
            if !mustWait { break }
            space.wait()
        }
        return enqueue(.piece(framed: framed(bytes), bytes: bytes.count), bytes: bytes.count)
    }

    /// `bytes` as one chunk of the body behind libwebsockets' headroom, in a buffer the service
    /// thread gave back if there is one (on the producer's thread).
    private func framed(_ bytes: [UInt8]) -> [UInt8] {
        var buffer = state.withLock { $0.spare.popLast() } ?? []
        buffer.removeAll(keepingCapacity: true)
        let sizeLine = String(bytes.count, radix: 16).utf8
        let count = Int(scws_lws_pre()) + sizeLine.count + bytes.count + 4
        if buffer.capacity < count { buffer.reserveCapacity(count) }
        buffer.append(contentsOf: repeatElement(0, count: Int(scws_lws_pre())))
        buffer.append(contentsOf: sizeLine)
        buffer.append(contentsOf: [13, 10])
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: [13, 10])
        return buffer
    }

    /// Service thread: a framed piece it has written, kept for the producer's next one (or let
    /// go when enough are kept). Moved in, so the producer refills it without copying it.
    func giveBack(_ framed: consuming [UInt8]) {
        var pending: [UInt8]? = consume framed
        let limit = spareLimit
        state.withLock { state in
            guard state.spare.count < limit, !state.cancelled else { return }
            state.spare.append(pending.take()!)
        }
    }

    /// Ends the body: the final chunk goes out after the queued pieces.
    public func finish() { enqueue(.end, bytes: 0) }

    /// Ends the response without its final chunk and closes the connection: what a producer
    /// does when it fails half-way, so the client sees an incomplete body rather than a short one.
    public func abort() { enqueue(.abort, bytes: 0) }

    /// Whether the client went away (or the server stopped): nothing more will be written.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the producer is waiting in `write` for the client to take what is queued.
    var isProducerWaiting: Bool { state.withLock { $0.producerWaiting } }

    /// The most bytes this stream has held unsent at once.
    public var peakBufferedBytes: Int { state.withLock { $0.peakBuffered } }

    @discardableResult
    private func enqueue(_ item: consuming Item, bytes: Int) -> Bool {
        // Moved into the queue, not copied: the service thread may write a piece before this
        // returns, and a second reference to its buffer would make it copy the piece.
        var pending: Item? = consume item
        let (accepted, mustWake) = state.withLock { state -> (Bool, Bool) in
            guard !state.cancelled, !state.ended else { return (false, false) }
            if case .end = pending { state.ended = true }
            if case .abort = pending { state.ended = true }
            state.items.append(pending.take()!)
            state.buffered += bytes
            state.peakBuffered = max(state.peakBuffered, state.buffered)
            defer { state.consumerWaiting = false }
            return (true, state.consumerWaiting)
        }
        if mustWake { wake() }
        return accepted
    }

    /// The next item to write, or nil (then the next `enqueue` wakes the service thread).
    /// Service thread only.
    func next() -> Item? {
        let (item, release) = state.withLock { state -> (Item?, Bool) in
            guard !state.items.isEmpty else {
                state.consumerWaiting = true
                return (nil, false)
            }
            let item = state.items.removeFirst()
            if case .piece(_, let bytes) = item { state.buffered -= bytes }
            let release = state.producerWaiting && state.buffered < bufferLimit
            if release { state.producerWaiting = false }
            return (item, release)
        }
        if release { space.signal() }
        return item
    }

    /// The connection is gone: drops what is queued and lets a waiting producer go.
    func cancel() {
        let release = state.withLock { state -> Bool in
            state.cancelled = true
            state.items.removeAll()
            state.buffered = 0
            defer { state.producerWaiting = false }
            return state.producerWaiting
        }
        if release { space.signal() }
    }
}
