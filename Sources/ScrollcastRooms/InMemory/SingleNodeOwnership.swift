/// `RoomOwnership` for a server that is the only node: every room is granted here. A room made
/// again after it was released gets a higher epoch than before, as it would from a cluster's
/// lease, so epochs mean the same thing on one node as on many.
@RoomActor public final class SingleNodeOwnership: RoomOwnership {
    /// This node's id.
    public let nodeID: String
    private var lastEpoch: [String: UInt64] = [:]
    private var held: Set<String> = []

    /// Ownership for the node called `nodeID`.
    public init(nodeID: String = "local") {
        self.nodeID = nodeID
    }

    /// Grants the room with the next epoch; nil only if it is already held (a room is made once).
    public func acquire(room name: String) -> RoomLease? {
        guard held.insert(name).inserted else { return nil }
        let epoch = (lastEpoch[name] ?? 0) + 1
        lastEpoch[name] = epoch
        return RoomLease(room: name, node: nodeID, epoch: epoch)
    }

    /// Lets the room be granted again.
    public func release(_ lease: RoomLease) {
        held.remove(lease.room)
    }
}
