/// A streamed HTTP response as the room layer sees it: its head once, then its body in pieces,
/// then its end, from any thread. The transport sends the pieces as the client takes them.
public protocol HTTPBodyWriter: Sendable {
    /// False for HEAD: the head is all that goes out, so the producer can skip the body.
    var wantsBody: Bool { get }
    /// Sends the status and headers. Call once, first.
    func begin(status: Int, contentType: String, headers: [(String, String)])
    /// Queues a piece of the body. Blocks while the transport holds its limit of bytes the client
    /// has not taken (so a slow reader slows the producer down instead of filling memory).
    /// Returns false once the client is gone: the producer stops.
    func write(_ bytes: [UInt8]) -> Bool
    /// Ends the body.
    func finish()
    /// Ends the response without the end of its body: the client sees it cut short.
    func abort()
    /// The most bytes this response has held unsent at once.
    var peakBufferedBytes: Int { get }
}

extension HTTPBodyWriter {
    /// A whole response at once (small: it never waits for the client).
    public func send(_ reply: HTTPReply) {
        begin(status: reply.status, contentType: reply.contentType, headers: reply.headers)
        _ = write(reply.body)
        finish()
    }
}
