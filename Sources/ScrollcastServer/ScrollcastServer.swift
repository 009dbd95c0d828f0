import Logging
import Metrics
import Prometheus
import ScrollEngine
import ScrollWire
import WebSockets

/// What a Scrollcast server listens on and enforces.
public struct ScrollcastServerConfiguration: Sendable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks any free port.
    public var port = 8080
    /// Folder with the page (index.html and its modules), served over HTTP.
    public var publicDirectory: String
    /// Origins allowed to open a WebSocket ("http://host:port"). nil: the server's own address
    /// (and localhost for a loopback host); ["*"]: any. Clients sending no Origin (not
    /// browsers) are always allowed.
    public var allowedOrigins: [String]?
    /// Limits and frame rate.
    public var limits = ServerLimits()
    /// Ping, idle and HTTP request timeouts.
    public var timeouts = ConnectionTimeouts()

    /// A configuration serving `publicDirectory` with every default.
    public init(publicDirectory: String, allowedOrigins: [String]? = nil) {
        self.publicDirectory = publicDirectory
        self.allowedOrigins = allowedOrigins
    }
}

/// The Scrollcast server: static page, `/ws` viewers in rooms, `/metrics` and `/healthz`, all on
/// one port. The WebSocket library calls it on its one service thread; all room state is touched
/// only there, which is why this class may be `@unchecked Sendable`.
public final class ScrollcastServer: WebSocketServerDelegate, @unchecked Sendable {
    private let configuration: ScrollcastServerConfiguration
    private let prometheus: PrometheusCollectorRegistry
    private let logger: Logger
    private let clock: RoomClock
    private let hub: ViewerHub
    private var socketServer: WebSocketServer!
    private var allowedOrigins: Set<String>? = []
    /// When the frame timer is set to fire (room clock scale, ms), or nil when it is not set.
    private var tickDeadline: Double?
    private var boundPort = 0

    /// A server whose metrics come from `metricsFactory` and are published from `prometheus` on
    /// `/metrics` (pass a factory over that registry, e.g. `ServerMetrics.prometheusFactory`).
    /// `makeConfiguration` gives each new room its scene.
    public init(configuration: ScrollcastServerConfiguration,
                metricsFactory: any MetricsFactory, prometheus: PrometheusCollectorRegistry,
                logger: Logger, clock: RoomClock = MonotonicRoomClock(),
                wallClock: @escaping WallClock = systemWallClock,
                makeConfiguration: @escaping () -> SceneConfiguration) {
        self.configuration = configuration
        self.prometheus = prometheus
        self.logger = logger
        self.clock = clock
        self.hub = ViewerHub(limits: configuration.limits, clock: clock, wallClock: wallClock,
                             metrics: ServerMetrics(factory: metricsFactory), logger: logger,
                             makeConfiguration: makeConfiguration)
    }

    /// Binds and starts serving; returns the bound port.
    public func start() throws -> Int {
        MemoryTuning.returnLargeBuffersToTheSystem()
        var socketConfiguration = WebSocketServerConfiguration(
            subprotocols: [ScrollWire.subprotocol], maxMessageBytes: ScrollWire.maxMessageBytes)
        socketConfiguration.host = configuration.host
        socketConfiguration.port = configuration.port
        socketConfiguration.publicDirectory = configuration.publicDirectory
        socketConfiguration.pingInterval = configuration.timeouts.pingIntervalSeconds
        socketConfiguration.idleTimeout = configuration.timeouts.idleTimeoutSeconds
        socketConfiguration.httpTimeoutSeconds = configuration.timeouts.httpRequestSeconds
        // Origins are checked in `shouldAccept`, because the default ("our own address") needs the
        // bound port, known only after binding.
        socketConfiguration.allowedOrigins = nil
        let server = WebSocketServer(configuration: socketConfiguration, delegate: self)
        socketServer = server
        let port = try server.start()
        server.execute { [self] in
            boundPort = port
            allowedOrigins = Self.origins(configured: configuration.allowedOrigins, host: configuration.host, port: port)
            scheduleHousekeeping()
        }
        return port
    }

    /// Closes every viewer with 1001 and stops serving; returns when stopped. Thread-safe.
    public func shutdown() {
        socketServer?.shutdown(code: .goingAway, reason: "server shutting down")
    }

    static func origins(configured: [String]?, host: String, port: Int) -> Set<String>? {
        if let configured {
            return configured.contains("*") ? nil : Set(configured)
        }
        var origins: Set<String> = ["http://\(host):\(port)"]
        if host == "127.0.0.1" || host == "localhost" || host == "0.0.0.0" {
            origins.formUnion(["http://127.0.0.1:\(port)", "http://localhost:\(port)"])
        }
        return origins
    }

    // MARK: WebSocketServerDelegate

    /// Refuses browsers from other origins.
    public func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision {
        if let origin = request.origin, let allowedOrigins, !allowedOrigins.contains(origin) {
            logger.notice("refusing WebSocket from another origin", metadata: ["origin": "\(origin)"])
            return .reject(reason: "origin \(origin) is not allowed")
        }
        return .accept
    }

    /// Registers the connection; it must `join` within the deadline.
    public func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?) {
        hub.open(connection, sink: ConnectionSink(server: server, connection: connection))
    }

    /// Hands the message to the hub, then makes sure animating rooms get ticks.
    public func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {
        hub.receive(message, from: connection)
        ensureTicking()
    }

    /// The viewer leaves its room.
    public func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: WebSockets.CloseCode?, reason: String) {
        hub.closed(connection)
        ensureTicking()
    }

    /// `GET /metrics` (Prometheus text format) and `GET /healthz`.
    public func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse? {
        guard method == "GET" || method == "HEAD" else { return nil }
        switch path {
        case "/healthz":
            return HTTPResponse(text: "ok\n", headers: [("cache-control", "no-store")])
        case "/metrics":
            return HTTPResponse(contentType: "text/plain; version=0.0.4; charset=utf-8",
                                body: prometheus.emitToBuffer(), headers: [("cache-control", "no-store")])
        default:
            return nil
        }
    }

    // MARK: Timers (service thread)

    /// Sets the frame timer for the earliest room that wants a tick, unless one is already set
    /// for that time or earlier. Timers set for a later time than a newer one become stale and
    /// do nothing when they fire.
    private func ensureTicking() {
        guard let deadline = hub.registry.nextTickDeadline else { return }
        if let scheduled = tickDeadline, scheduled <= deadline { return }
        tickDeadline = deadline
        socketServer.schedule(afterMilliseconds: max(0, deadline - clock.nowMilliseconds())) { [self] in
            guard tickDeadline == deadline else { return }
            tickDeadline = nil
            hub.registry.tick()
            ensureTicking()
        }
    }

    private func scheduleHousekeeping() {
        socketServer.schedule(afterMilliseconds: 1000) { [self] in
            hub.housekeeping()
            scheduleHousekeeping()
        }
    }
}

/// A viewer's WebSocket connection as a `ViewerSink`.
final class ConnectionSink: ViewerSink {
    private unowned let server: WebSocketServer
    private let connection: ConnectionID

    init(server: WebSocketServer, connection: ConnectionID) {
        self.server = server
        self.connection = connection
    }

    func sendReliable(_ message: OutboundMessage) { server.send(message, to: connection) }
    func sendLatest(_ message: OutboundMessage) -> Bool { server.sendLatest(message, to: connection) }
    func close(code: WebSockets.CloseCode, reason: String) { server.close(connection, code: code, reason: reason) }
}
