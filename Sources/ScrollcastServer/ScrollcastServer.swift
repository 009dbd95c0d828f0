import ScrollcastRooms
import Logging
import Metrics
import Prometheus
import ScrollWire

/// What a Scrollcast server listens on and enforces.
public struct ScrollcastServerConfiguration: Sendable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks any free port.
    public var port = 8080
    /// Folder with the page (index.html and its modules), served over HTTP.
    public var publicDirectory: String
    /// Folder of gzip and brotli copies of the page's files, made at build time
    /// (`make precompress`), served to browsers that accept them; nil: none (docs/design.md).
    public var encodedDirectory: String?
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
/// one port. The transport's service thread is the room thread: the room actor's executor.
public final class ScrollcastServer: Sendable {
    private let configuration: ScrollcastServerConfiguration
    private let transport = WebSocketTransport()
    private let service: RoomService

    /// A server whose metrics come from `metricsFactory` and are published from `prometheus` on
    /// `/metrics` (pass a factory over that registry, e.g. `ServerMetrics.prometheusFactory`).
    /// Rooms get their scenes from `scenes`, keep their state in the store `store` makes and
    /// learn who runs them from `ownership`; the defaults keep everything in this process.
    /// `store` is called once, with the room thread's scheduler (the transport), through which a
    /// store that writes on its own thread hands completions back. With `cluster` (called once,
    /// likewise), the node's store, ownership and relay replace `store` and `ownership`.
    @RoomActor public init(configuration: ScrollcastServerConfiguration,
                metricsFactory: any MetricsFactory, prometheus: PrometheusCollectorRegistry,
                logger: Logger, clock: RoomClock = MonotonicRoomClock(),
                wallClock: @escaping WallClock = systemWallClock,
                scenes: SceneCatalogue = .standard,
                store makeStore: (RoomScheduler) -> RoomStore = { _ in InMemoryRoomStore() },
                ownership: RoomOwnership = SingleNodeOwnership(),
                cluster makeCluster: ((RoomScheduler, ServerMetrics) -> RoomClusterNode)? = nil) {
        self.configuration = configuration
        let metrics = ServerMetrics(factory: metricsFactory)
        let cluster = makeCluster?(transport, metrics)
        let services = RoomServices(clock: clock, wallClock: wallClock, metrics: metrics, scenes: scenes,
                                    store: cluster?.store ?? makeStore(transport),
                                    ownership: cluster?.ownership ?? ownership, relay: cluster?.relay)
        service = RoomService(limits: configuration.limits, services: services, scheduler: transport,
                              prometheus: prometheus, logger: logger,
                              allowedOrigins: configuration.allowedOrigins, host: configuration.host, cluster: cluster)
    }

    /// Binds and starts serving; returns the bound port.
    @RoomActor public func start() throws -> Int {
        MemoryTuning.returnLargeBuffersToTheSystem()
        return try transport.start(configuration, service: service)
    }

    /// Closes every viewer with 1001 and stops serving; returns when stopped. Thread-safe.
    public func shutdown() {
        transport.shutdown(CloseReason(.goingAway, "server shutting down"))
    }
}
