/// Which node runs a room. One node at a time runs a room's engine; a lease says this node does,
/// and its epoch grows with every new owner, so anything stamped with an older epoch can be
/// recognised as stale (fencing). On one node, `SingleNodeOwnership` grants every room.
@RoomActor public protocol RoomOwnership: AnyObject {
    /// This node's id, as leases name it.
    var nodeID: String { get }
    /// Takes room `name` for this node, or returns nil when another node runs it.
    func acquire(room name: String) -> RoomLease?
    /// Gives the room up (it left memory here).
    func release(_ lease: RoomLease)
}

/// The right of one node to run one room.
public struct RoomLease: Sendable, Hashable, CustomStringConvertible {
    /// The room.
    public var room: String
    /// The node holding it.
    public var node: String
    /// Grows with each new owner of the room.
    public var epoch: UInt64

    /// A lease.
    public init(room: String, node: String, epoch: UInt64) {
        self.room = room
        self.node = node
        self.epoch = epoch
    }

    /// "room@node#epoch", for logs.
    public var description: String { "\(room)@\(node)#\(epoch)" }
}
