import Metrics

/// What a node reports of its part in the cluster on `/metrics`.
public final class ClusterMetrics: Sendable {
    let roomsOwned: Metrics.Gauge
    let framesPublished: Metrics.Counter
    let framesRelayed: Metrics.Counter
    let streamMessagesPublished: Metrics.Counter
    let brokerBytes: Metrics.Counter
    let brokerLag: Metrics.Timer
    let leaseLosses: Metrics.Counter
    let takeovers: Metrics.Counter
    let redisConnected: Metrics.Gauge
    let staleDropped: Metrics.Counter
    let snapshotsAskedAgain: Metrics.Counter

    /// Metric names, as they appear on `/metrics`.
    public enum Name {
        /// Gauge: rooms this node runs (holds the lease of).
        public static let roomsOwned = "scrollcast_cluster_rooms_owned"
        /// Counter: room frames this node published for viewers on other nodes (once per frame).
        public static let framesPublished = "scrollcast_cluster_frames_published_total"
        /// Counter: frames this node received from other nodes' rooms and handed to its viewers
        /// (once per frame, however many viewers).
        public static let framesRelayed = "scrollcast_cluster_frames_relayed_total"
        /// Counter: inputs-stream messages (`batch`es and hashed `beat`s) this node published for
        /// viewers of the inputs stream on other nodes (once per message).
        public static let streamMessagesPublished = "scrollcast_cluster_stream_messages_published_total"
        /// Counter: bytes this node published to the broker.
        public static let brokerBytes = "scrollcast_cluster_broker_bytes_total"
        /// Histogram: from the owner's publish to this node's receipt (wall clocks), seconds.
        public static let brokerLag = "scrollcast_cluster_broker_lag_seconds"
        /// Counter: leases this node lost while it ran the room (it stepped down).
        public static let leaseLosses = "scrollcast_cluster_lease_losses_total"
        /// Counter: rooms this node took over from another node.
        public static let takeovers = "scrollcast_cluster_takeovers_total"
        /// Gauge: 1 while this node's command connection to Redis is up.
        public static let redisConnected = "scrollcast_cluster_redis_connected"
        /// Counter: messages dropped because they came from an owner with an older epoch.
        public static let staleDropped = "scrollcast_cluster_stale_messages_dropped_total"
        /// Counter: snapshots this node asked the owner for again, for its viewers, because the
        /// one asked a roster period before had not come (lost while the owner's link was down).
        public static let snapshotsAskedAgain = "scrollcast_cluster_snapshots_asked_again_total"
    }

    /// Metrics made by `factory`.
    public init(factory: any MetricsFactory) {
        roomsOwned = Metrics.Gauge(label: Name.roomsOwned, factory: factory)
        framesPublished = Metrics.Counter(label: Name.framesPublished, factory: factory)
        framesRelayed = Metrics.Counter(label: Name.framesRelayed, factory: factory)
        streamMessagesPublished = Metrics.Counter(label: Name.streamMessagesPublished, factory: factory)
        brokerBytes = Metrics.Counter(label: Name.brokerBytes, factory: factory)
        brokerLag = Metrics.Timer(label: Name.brokerLag, factory: factory)
        leaseLosses = Metrics.Counter(label: Name.leaseLosses, factory: factory)
        takeovers = Metrics.Counter(label: Name.takeovers, factory: factory)
        redisConnected = Metrics.Gauge(label: Name.redisConnected, factory: factory)
        staleDropped = Metrics.Counter(label: Name.staleDropped, factory: factory)
        snapshotsAskedAgain = Metrics.Counter(label: Name.snapshotsAskedAgain, factory: factory)
        roomsOwned.record(0)
        redisConnected.record(0)
    }
}
