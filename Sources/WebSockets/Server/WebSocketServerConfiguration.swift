/// Everything a `WebSocketServer` needs to know before it binds.
public struct WebSocketServerConfiguration: Sendable {
    /// Address to listen on (an IPv4 address or interface name).
    public var host = "127.0.0.1"
    /// TCP port; 0 asks for any free port (read it back from `WebSocketServer.port`).
    public var port = 8080
    /// Folder of static files served over HTTP on the same port; nil serves none.
    public var publicDirectory: String? = nil
    /// Folder of gzip (`.gz`) and brotli (`.br`) copies of `publicDirectory`'s files under the
    /// same relative paths, made at build time; each is sent instead of its file to clients that
    /// accept its coding, unless it is older than the file. Nil, or a missing folder: none.
    public var encodedDirectory: String? = nil
    /// The only path a WebSocket upgrade is accepted on.
    public var webSocketPath = "/ws"
    /// The subprotocols this server speaks; a client must offer at least one of them in
    /// Sec-WebSocket-Protocol (unless `acceptsMissingSubprotocol` and it offers none). A list, so
    /// one server can serve two versions of an application protocol while clients move over; the
    /// application learns each connection's choice in `didOpen`. No default: the transport knows
    /// no application protocol. Each name must be an HTTP token of at most 62 bytes (what
    /// libwebsockets can match), and an empty list suits only `acceptsMissingSubprotocol`;
    /// `start()` throws otherwise rather than run a server whose clients would be dropped.
    public var subprotocols: [String]
    /// Accept clients that offer no subprotocol at all (a conformance echo endpoint needs this).
    public var acceptsMissingSubprotocol = false
    /// Largest reassembled inbound message; larger ones close the connection with 1009. No
    /// default, because the right cap depends on the application protocol's messages.
    public var maxMessageBytes: Int
    /// A query parameter of the upgrade URL whose value is the connection's first text message
    /// (`/ws?join=…`, percent-encoded): the delegate gets it right after `didOpen`, as if it had
    /// come in the first frame, so its answer can follow the 101 without waiting a round trip.
    /// nil (the default): the query is only reported in `UpgradeRequest.query`.
    public var firstMessageParameter: String? = nil
    /// The most bytes (decoded) that parameter may hold; a longer one is refused with 414, and a
    /// second one with 400. Below `maxHTTPHeaderBytes`, whose 431 would come first.
    public var maxFirstMessageParameterBytes = 4096
    /// Reliable messages queued per connection; one more closes it with 1008 "send queue overflow".
    public var reliableQueueLimit = 256
    /// Seconds of silence before the server pings a connection.
    public var pingInterval: Int = 20
    /// Seconds of silence (no valid pong or data) before the server hangs up.
    public var idleTimeout: Int = 60
    /// Allowed Origin values, exact matches like "http://host:port"; nil allows any origin.
    public var allowedOrigins: [String]? = nil
    /// Largest request head (request line and headers, as sent) accepted; a larger one is answered
    /// 431, up to what libwebsockets' own header buffer holds (`RequestHeadMeter.lwsBufferBytes`,
    /// 64 KiB), past which the connection is dropped unanswered.
    public var maxHTTPHeaderBytes = 8192
    /// Seconds an HTTP request may take before the connection is dropped.
    public var httpTimeoutSeconds = 10
    /// Offer permessage-deflate to clients. Off by default, and it must stay off on a server that
    /// strangers reach: libwebsockets 4.1.6's inflater aborts the whole process (an `assert` after
    /// its final "trailer" inflate) on compressed input that any client can send; a 4 KiB message
    /// of one repeated letter was enough (Tests/e2e/test_reliability_input.py).
    public var permessageDeflate = false
    /// Write a message the moment it is sent when its connection is idle (nothing queued, nothing
    /// buffered in lws), instead of waiting for a writeable callback (see DirectWrite.swift), while
    /// the service loop keeps up (`writeAtOnceLatenessLimitMilliseconds`). Off by default until a
    /// quiet-machine `make bench-slow` and ladder confirm it (bench/where-the-time-goes.md §7, §8).
    /// `scrollcast` reads SCROLLCAST_WRITE_AT_ONCE=1 to turn it on.
    public var writesAtOnce = false
    /// With `writesAtOnce`: when the loop's last timer fired more than this many milliseconds late
    /// (the loop has more work than time), messages wait in the reliable queue or latest slot again,
    /// so frames that pile up while it is behind merge into the newest one per connection, until a
    /// timer fires on time. A quarter of a 60 Hz frame period by default.
    public var writeAtOnceLatenessLimitMilliseconds = 4.0

    /// A configuration for the application protocol given by `subprotocols` and
    /// `maxMessageBytes`, which have no sensible defaults here; everything else starts at its
    /// default (listen on 127.0.0.1:8080).
    public init(subprotocols: [String], maxMessageBytes: Int) {
        self.subprotocols = subprotocols
        self.maxMessageBytes = maxMessageBytes
    }
}
