import Dispatch
import ScrollcastRooms
import Synchronization

/// An `HTTPBodyWriter` that keeps the whole response, for tests of streamed routes: `wait`
/// returns it once the producer (on its own thread) has finished or aborted.
public final class CollectingBodyWriter: HTTPBodyWriter {
    private struct State {
        var status = 0
        var contentType = ""
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        var aborted = false
        var done = false
    }
    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)
    public let wantsBody: Bool

    /// A writer for a GET (`wantsBody`) or a HEAD.
    public init(wantsBody: Bool = true) { self.wantsBody = wantsBody }

    public func begin(status: Int, contentType: String, headers: [(String, String)]) {
        state.withLock { ($0.status, $0.contentType, $0.headers) = (status, contentType, headers) }
    }
    public func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { $0.body += bytes }
        return true
    }
    public func finish() { end(aborted: false) }
    public func abort() { end(aborted: true) }
    public var peakBufferedBytes: Int { 0 }

    private func end(aborted: Bool) {
        state.withLock { ($0.aborted, $0.done) = (aborted, true) }
        ended.signal()
    }

    /// The response once it has ended (nil if it has not within `seconds`), and whether it was
    /// cut short.
    public func wait(seconds: Double = 30) -> (reply: HTTPReply, aborted: Bool)? {
        guard ended.wait(timeout: .now() + seconds) == .success else { return nil }
        ended.signal()
        return state.withLock {
            (HTTPReply(status: $0.status, contentType: $0.contentType, body: $0.body, headers: $0.headers), $0.aborted)
        }
    }
}
