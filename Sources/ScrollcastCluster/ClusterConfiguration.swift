/// How a node takes part in a cluster: who it is and its lease timings (docs/cluster.md).
public struct ClusterConfiguration: Sendable, Hashable {
    /// This node's id, unique in the cluster (default `HOST:PORT`). Viewer names on this node
    /// start with it, and other nodes reach it on its own channel.
    public var nodeID: String
    /// How long a room's lease lasts without renewal, ms. Another node may take the room this
    /// long after its owner last renewed (sooner if the owner's connection to Redis is gone).
    public var leaseMilliseconds: Double = 3000
    /// How often an owner renews its leases, ms.
    public var renewMilliseconds: Double = 1000
    /// How often a node with viewers of a room run elsewhere checks that the owner lives, ms.
    public var watchMilliseconds: Double = 500
    /// How often a node tells each owner which of its viewers watch the owner's room, ms.
    public var rosterMilliseconds: Double = 1000
    /// An owner drops another node's viewers after this long without that node's roster, ms.
    public var rosterTimeoutMilliseconds: Double = 3500
    /// A node keeps following a room run elsewhere this long after its last viewer of it left,
    /// ms, so a viewer that reconnects here (to resume) finds the subscription in place: dropping
    /// and taking it again leaves a gap in which messages are lost, which costs a snapshot.
    public var idleFollowMilliseconds: Double = 10_000
    /// Log lines kept per room in Redis (the newest; older ones are trimmed; 0 keeps none).
    public var logLength = 100_000
    /// Prefix of every Redis key and channel, so several clusters can share one Redis.
    public var keyPrefix = "scrollcast:"

    /// A configuration for node `nodeID` with the default timings.
    public init(nodeID: String) {
        self.nodeID = nodeID
    }
}
