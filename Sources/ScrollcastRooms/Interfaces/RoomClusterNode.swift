/// This node's part in a cluster of servers sharing rooms (`ScrollcastCluster` builds one over
/// Redis). It supplies the room store, ownership and relay every room uses, and the directory
/// that places viewers in rooms run here or on other nodes. Without one a server is a single
/// node and nothing here is used.
@RoomActor public protocol RoomClusterNode: AnyObject {
    /// Prefixed to the hub's viewer names, so they are unique across nodes.
    var viewerNamePrefix: String { get }
    /// Where rooms run here keep their durable state.
    var store: RoomStore { get }
    /// Leases on rooms.
    var ownership: RoomOwnership { get }
    /// How rooms run here reach viewers on every node.
    var relay: RoomRelay { get }
    /// The directory for the hub, once the registry exists. Called once. (A room handed another
    /// node's input or viewers tells the registry of its new deadline itself.)
    func makeDirectory(registry: RoomRegistry) -> RoomDirectory
    /// The server listens: the node starts its timers and links. On the room thread.
    func start()
}
