/// How long the server waits on a connection that has gone quiet.
public struct ConnectionTimeouts: Sendable, Hashable {
    /// Seconds without anything valid from a WebSocket peer before the server pings it.
    public var pingIntervalSeconds = 20
    /// Seconds without anything valid (a pong, or data) before the server hangs up: a peer that
    /// vanished without closing (half-open TCP) is found this way.
    public var idleTimeoutSeconds = 60
    /// Seconds an HTTP request (or an upgrade) may take to arrive whole; a client that dribbles its
    /// headers (slowloris) is dropped after this.
    public var httpRequestSeconds = 10

    /// The defaults: ping after 20 s of silence, hang up after 60 s, 10 s for a request.
    public init() {}

    /// Timeouts derived from one ping interval: hang up after three silent intervals.
    public init(pingIntervalSeconds: Int, httpRequestSeconds: Int = 10) {
        self.pingIntervalSeconds = pingIntervalSeconds
        self.idleTimeoutSeconds = pingIntervalSeconds * 3
        self.httpRequestSeconds = httpRequestSeconds
    }
}
