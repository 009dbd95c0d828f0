import Logging
import Metrics
import Redis
import ScrollcastServer

/// This server's part in a cluster over Redis (docs/cluster.md): one owner per room by lease,
/// the owner publishing each message once for the other nodes, the other nodes forwarding
/// their viewers' rosters and inputs to it, and a node with viewers of a room whose owner died
/// taking it over.
///
/// Redis is reached from two threads of the `Redis` library (commands, pub/sub), never from the
/// room thread; every reply comes back through the scheduler, and all state here is touched
/// only on the room thread, which is why the class may be `@unchecked Sendable`.
public final class ClusterNode: RoomClusterNode, @unchecked Sendable {
    /// This node's settings.
    public let configuration: ClusterConfiguration
    let keys: ClusterKeys
    let scheduler: RoomScheduler
    let clock: RoomClock
    let wallClock: WallClock
    let logger: Logger
    let metrics: ClusterMetrics
    let serverMetrics: ServerMetrics
    let commands: RedisCommandQueue
    let subscriber: RedisSubscriber
    private(set) var registry: RoomRegistry!
    private var roomsChangedHandler: () -> Void = {}
    var links: [String: RoomLink] = [:]
    /// The leases this node holds, and when each was last confirmed (room clock ms).
    var leases: [String: HeldLease] = [:]
    /// Since when (room clock ms) the pub/sub link has been up; nil while it is down.
    var subscriberUpSince: Double?
    /// How often the pub/sub link was lost: subscriptions confirmed since may have missed messages.
    var subscriberLosses = 0

    struct HeldLease {
        var lease: RoomLease
        var confirmedAt: Double
        var value: String { ClusterKeys.leaseValue(node: lease.node, epoch: lease.epoch) }
    }

    private lazy var clusterStore = RedisRoomStore(
        redis: self, keys: keys, logLength: configuration.logLength,
        onWriteFailure: { [logger] message in
            logger.error("cluster store cannot write; row moves are refused (unavailable) until it can", metadata: ["error": "\(message)"])
        })
    private lazy var clusterRelay = ClusterRelay(node: self, metrics: metrics, serverMetrics: serverMetrics, wallClock: wallClock)
    private lazy var clusterOwnership = ClusterOwnership(node: self)

    /// A node of the cluster on Redis at `address`, running its rooms on `scheduler`'s thread.
    /// Its metrics come from `metricsFactory` (the server's `/metrics` registry).
    public init(configuration: ClusterConfiguration, redis address: RedisAddress, scheduler: RoomScheduler,
                serverMetrics: ServerMetrics, metricsFactory: any MetricsFactory, logger: Logger,
                clock: RoomClock = MonotonicRoomClock(), wallClock: @escaping WallClock = systemWallClock) {
        self.configuration = configuration
        self.keys = ClusterKeys(prefix: configuration.keyPrefix)
        self.scheduler = scheduler
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        self.metrics = ClusterMetrics(factory: metricsFactory)
        self.serverMetrics = serverMetrics
        let hop = SchedulerHop(scheduler: scheduler)
        // The Redis threads reach the node through this, set once the node exists.
        let reference = NodeReference()
        commands = RedisCommandQueue(address: address, name: "scrollcast \(configuration.nodeID) commands",
                                     onStateChange: { state in hop.hop { reference.node?.commandLink(state) } })
        subscriber = RedisSubscriber(
            address: address, name: "scrollcast \(configuration.nodeID) pubsub",
            onMessage: { channel, payload in hop.hop { reference.node?.received(payload, on: channel) } },
            onSubscribed: { channel in hop.hop { reference.node?.subscribed(to: channel) } },
            onStateChange: { state in hop.hop { reference.node?.subscriberLink(state) } })
        reference.node = self
    }

    // MARK: RoomClusterNode

    /// This node's id and a slash: "127.0.0.1:8081/v3".
    public var viewerNamePrefix: String { configuration.nodeID + "/" }
    /// The Redis room store.
    public var store: RoomStore { clusterStore }
    /// Leases on Redis.
    public var ownership: RoomOwnership { clusterOwnership }
    /// Publishes rooms run here for the other nodes.
    public var relay: RoomRelay { clusterRelay }

    /// The directory placing viewers in rooms run here or elsewhere.
    public func makeDirectory(registry: RoomRegistry, roomsChanged: @escaping () -> Void) -> RoomDirectory {
        self.registry = registry
        self.roomsChangedHandler = roomsChanged
        return ClusterDirectory(node: self)
    }

    /// Connects to Redis and starts the lease, watch and roster timers.
    public func start() {
        logger.info("joining cluster", metadata: ["node": "\(nodeID)"])
        commands.start()
        subscriber.start()
        subscriber.subscribe(keys.nodeChannel(nodeID))
        scheduler.scheduleRepeating(everyMilliseconds: configuration.renewMilliseconds) { [self] in renewLeases() }
        scheduler.scheduleRepeating(everyMilliseconds: configuration.watchMilliseconds) { [self] in watchOwners() }
        scheduler.scheduleRepeating(everyMilliseconds: configuration.rosterMilliseconds) { [self] in sendRosters() }
    }

    /// Closes the links to Redis. Thread-safe; call once the server has stopped.
    public func close() {
        commands.close()
        subscriber.close()
    }

    // MARK: For the links

    var nodeID: String { configuration.nodeID }
    var roomStore: RedisRoomStore { clusterStore }
    var channelRelay: ClusterRelay { clusterRelay }

    func roomsChanged() {
        roomsChangedHandler()
    }

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
        unsubscribe(room: link.name)
    }

    private var now: Double { clock.nowMilliseconds() }

    /// Every `watchMilliseconds`: a room run elsewhere is claimed, which takes it if its owner
    /// is gone and otherwise names the owner (a new one gets this node's roster).
    private func watchOwners() {
        for link in links.values where link.isRemote {
            guard link.isEmpty else {
                link.claim()
                continue
            }
            // Nobody here watches it any more: kept a while for a viewer coming back, then let go.
            let since = link.emptySince ?? now
            link.emptySince = since
            if now - since >= configuration.idleFollowMilliseconds { drop(link) }
        }
    }

    /// Every `rosterMilliseconds`: rosters for the owners (so a lost one heals), and owners drop
    /// the viewers of nodes that went silent.
    private func sendRosters() {
        let current = now
        let heard = subscriberUpSince.map { current - $0 >= configuration.rosterTimeoutMilliseconds } ?? false
        for link in links.values {
            if link.isRemote { link.sendRoster() }
            if link.isOwner, heard { link.dropSilentNodes(now: current, timeout: configuration.rosterTimeoutMilliseconds) }
        }
    }
}

/// Hands work from a Redis thread to the room thread.
struct SchedulerHop: @unchecked Sendable {
    let scheduler: RoomScheduler

    func hop(_ work: @escaping () -> Void) {
        let box = UncheckedBox(work)
        scheduler.execute { box.value() }
    }
}

/// The node, for the Redis threads' callbacks (which only hop to the room thread with it).
final class NodeReference: @unchecked Sendable {
    weak var node: ClusterNode?
}

/// A value carried across threads by hand: it is used only on the room thread.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
