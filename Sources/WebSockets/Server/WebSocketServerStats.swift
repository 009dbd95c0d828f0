/// Running totals of a server's WebSocket traffic (snapshot; read from any thread).
public struct WebSocketServerStats: Sendable, Equatable {
    /// WebSocket connections open right now.
    public var openConnections = 0
    /// WebSocket connections opened since start.
    public var connectionsOpened = 0
    /// Messages written to sockets (reliable and latest-slot).
    public var messagesSent = 0
    /// Payload bytes of those messages (before compression, without framing).
    public var bytesSent = 0
    /// Whole messages received.
    public var messagesReceived = 0
    /// Payload bytes of those messages.
    public var bytesReceived = 0
    /// Messages written the moment they were sent because their connection was idle (no writeable
    /// callback waited for); counted in `messagesSent` too.
    public var messagesWrittenAtOnce = 0
    /// Writes that carried more than one message (CorkedWrite.swift); their messages are counted
    /// in `messagesSent` one by one.
    public var corkedWrites = 0
    /// Corked writes the kernel took only part of (lws keeps the rest and sends it first).
    public var writesLeftBuffered = 0
    /// Latest-slot messages replaced before they were sent (skipped frames).
    public var latestReplaced = 0
    /// Connections closed because their reliable queue overflowed.
    public var queueOverflows = 0
    /// Connections closed for an oversized (1009) or invalid UTF-8 (1007) message.
    public var badMessages = 0
    /// HTTP requests answered (static, dynamic and errors).
    public var httpRequests = 0
    /// Upgrade requests refused (path, origin, subprotocol or delegate).
    public var upgradesRefused = 0
}
