import ScrollcastRooms

/// `RoomOwnership` of a cluster node. Leases are taken by the node's links (a claim is a
/// round trip to Redis, which `acquire` must not wait for); the registry only gives them back
/// here when it evicts a room.
final class ClusterOwnership: RoomOwnership {
    private unowned let node: ClusterNode

    init(node: ClusterNode) {
        self.node = node
    }

    var nodeID: String { node.nodeID }

    /// The lease this node already holds on the room, if any (the cluster never acquires here).
    func acquire(room name: String) -> RoomLease? {
        node.leases[name]?.lease
    }

    /// The room left memory: the lease goes back to Redis and the link forgets the room.
    func release(_ lease: RoomLease) {
        node.release(lease)
        if let link = node.links[lease.room] { link.step(.evicted(hasViewers: !link.isEmpty)) }
    }
}
