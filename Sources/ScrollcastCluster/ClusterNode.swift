import Dispatch
import Logging
import Metrics
import Redis
import ScrollcastRooms

/// This server's part in a cluster (docs/cluster.md): one owner per room by lease, the owner
/// publishing each message once for the other nodes, the other nodes forwarding their viewers'
/// rosters and inputs to it, and a node with viewers of a room whose owner died taking it over.
/// Each room's part is a `RoomLink` (a state machine); the broker is a `ClusterBackend`.
///
/// All state here is on the room actor (it is a `RoomClusterNode`): the backend hands every
/// reply and event there (Redis's threads only hop through the scheduler).
public final class ClusterNode: RoomClusterNode {
    /// This node's settings.
    public let configuration: ClusterConfiguration
    let backend: any ClusterBackend
    let scheduler: RoomScheduler
    let clock: RoomClock
    let wallClock: WallClock
    let logger: Logger
    let metrics: ClusterMetrics
    let serverMetrics: ServerMetrics
    private(set) var registry: RoomRegistry!
    var links: [String: RoomLink] = [:]
    /// The leases this node holds, and when each was last confirmed (room clock ms).
    var leases: [String: HeldLease] = [:]
    /// Reads the scenes uploaded to other nodes into this node's catalogue (nil: uploads stay
    /// on the node they were made on, as with the in-memory broker of the tests). Set before
    /// `start()`, which starts it.
    public var sceneSync: ClusterSceneSync?
    /// Since when (room clock ms) the pub/sub link has been up; nil while it is down.
    var subscriberUpSince: Double?
    /// How often the pub/sub link was lost: subscriptions confirmed since may have missed messages.
    var subscriberLosses = 0
    /// Signalled once, the first time both links are up (``waitUntilLinked(milliseconds:)``).
    let firstLinked = DispatchSemaphore(value: 0)
    var firstLinkedSignalled = false

    struct HeldLease {
        var lease: RoomLease
        var confirmedAt: Double
    }

    private lazy var clusterStore = ClusterRoomStore(
        node: self, logLength: configuration.logLength,
        onWriteFailure: { [logger] message in
            logger.error("cluster store cannot write; row moves are refused (unavailable) until it can", metadata: ["error": "\(message)"])
        })
    private lazy var clusterRelay = ClusterRelay(node: self, metrics: metrics, serverMetrics: serverMetrics, wallClock: wallClock)
    private lazy var clusterOwnership = ClusterOwnership(node: self)

    /// A node of the cluster on Redis at `address`, running its rooms on `scheduler`'s thread.
    /// Its metrics come from `metricsFactory` (the server's `/metrics` registry).
    public convenience init(configuration: ClusterConfiguration, redis address: RedisAddress, scheduler: RoomScheduler,
                            serverMetrics: ServerMetrics, metricsFactory: any MetricsFactory, logger: Logger,
                            clock: RoomClock = MonotonicRoomClock(), wallClock: @escaping WallClock = systemWallClock) {
        let backend = RedisClusterBackend(address: address, nodeID: configuration.nodeID,
                                          keys: ClusterKeys(prefix: configuration.keyPrefix), scheduler: scheduler,
                                          logger: logger)
        self.init(configuration: configuration, backend: backend, scheduler: scheduler, serverMetrics: serverMetrics,
                  metricsFactory: metricsFactory, logger: logger, clock: clock, wallClock: wallClock)
    }

    /// A node of the cluster on `backend` (Redis, or `InMemoryClusterBackend` in tests).
    package init(configuration: ClusterConfiguration, backend: any ClusterBackend, scheduler: RoomScheduler,
         serverMetrics: ServerMetrics, metricsFactory: any MetricsFactory, logger: Logger,
         clock: RoomClock, wallClock: @escaping WallClock) {
        self.configuration = configuration
        self.backend = backend
        self.scheduler = scheduler
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        self.metrics = ClusterMetrics(factory: metricsFactory)
        self.serverMetrics = serverMetrics
    }

    // MARK: RoomClusterNode

    /// This node's id and a slash: "127.0.0.1:8081/v3".
    public var viewerNamePrefix: String { configuration.nodeID + "/" }
    /// The cluster's room store (in Redis).
    public var store: RoomStore { clusterStore }
    /// Leases in the backend.
    public var ownership: RoomOwnership { clusterOwnership }
    /// Publishes rooms run here for the other nodes.
    public var relay: RoomRelay { clusterRelay }

    /// The directory placing viewers in rooms run here or elsewhere.
    public func makeDirectory(registry: RoomRegistry) -> RoomDirectory {
        self.registry = registry
        return ClusterDirectory(node: self)
    }

    /// Connects to the backend and starts the lease, watch and roster timers.
    public func start() {
        logger.info("joining cluster", metadata: ["node": "\(nodeID)"])
        backend.start(nodeID: nodeID, events: self)
        sceneSync?.start()
        scheduler.scheduleRepeating(everyMilliseconds: configuration.renewMilliseconds) { [weak self] in self?.renewLeases() }
        scheduler.scheduleRepeating(everyMilliseconds: configuration.watchMilliseconds) { [weak self] in self?.watchOwners() }
        scheduler.scheduleRepeating(everyMilliseconds: configuration.rosterMilliseconds) { [weak self] in self?.sendRosters() }
    }

    /// Blocks the calling thread (never the room thread) until both links to Redis have been up
    /// once, at most `milliseconds`; whether they were. Start-up waits for this before announcing
    /// the port: a node that says it listens before it can claim a room would refuse the first
    /// joins with 1013 (a test saw this once, a join a few milliseconds after start-up).
    public nonisolated func waitUntilLinked(milliseconds: Int) -> Bool {
        firstLinked.wait(timeout: .now() + .milliseconds(milliseconds)) == .success
    }

    /// Closes the links to the backend. Thread-safe; call once the server has stopped.
    public func close() {
        backend.close()
        sceneSync?.close()
    }

    // MARK: For the links

    var nodeID: String { configuration.nodeID }
    var roomStore: ClusterRoomStore { clusterStore }
    var channelRelay: ClusterRelay { clusterRelay }

    /// The link of room `name`, made if there is none.
    func link(for name: String) -> (link: RoomLink, isNew: Bool) {
        if let link = links[name] { return (link, false) }
        let link = RoomLink(name: name, node: self)
        links[name] = link
        return (link, true)
    }

    /// Forgets a link that has nothing left here.
    func drop(_ link: RoomLink) {
        guard links[link.name] === link else { return }
        links[link.name] = nil
        backend.unsubscribe(room: link.name)
    }

    /// Sends `message` to node `node`'s channel.
    func send(_ message: NodeMessage, to node: String) {
        backend.send(message.encoded(), toNode: node)
    }

    /// Every `watchMilliseconds`: a room run elsewhere is claimed, which takes it if its owner
    /// is gone and otherwise names the owner; an empty one is let go after a while.
    private func watchOwners() {
        let now = clock.nowMilliseconds()
        for link in Array(links.values) where link.state.isFollower {
            link.step(.watch(now: now, hasViewers: !link.isEmpty, idleMilliseconds: configuration.idleFollowMilliseconds))
        }
    }

    /// Every `rosterMilliseconds`: rosters for the owners (so a lost one heals), and owners drop
    /// the viewers of nodes that went silent.
    private func sendRosters() {
        let now = clock.nowMilliseconds()
        let heard = subscriberUpSince.map { now - $0 >= configuration.rosterTimeoutMilliseconds } ?? false
        for link in Array(links.values) { link.step(.rosterTick(heard: heard)) }
    }
}
