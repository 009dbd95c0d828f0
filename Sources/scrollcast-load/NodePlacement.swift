/// Which node each connection of a room connects to when `--url` lists several, so that every
/// room has viewers on several nodes and (by default) its drivers' inputs cross nodes.
///
/// With N nodes, room r's *first node* is r mod N. Viewer k of room r (k from 0) connects to
/// node (r + k) mod N; viewer 0, the room's *founder*, connects before anyone else of the room
/// and its snapshot is awaited, so the room is created on the first node. The load tool never
/// asks Redis who runs a room: it assumes the first node does (`--owner-hint first-node`: the
/// first viewer to join creates the room on its node), which holds for rooms no node runs yet.
struct NodePlacement: Sendable, Equatable {
    /// Where a room's drivers connect (`--driver-node`).
    enum DriverNode: String, CaseIterable, Sendable {
        /// Never the room's first node (where there are other nodes): driver j of room r on node
        /// (r + 1 + j mod (N − 1)) mod N, so every input is forwarded to the owner.
        case other
        /// The room's first node, which runs it: inputs stay on one node.
        case first
        /// Even rooms `first`, odd rooms `other`: local and remote latency from the same run.
        case alternate
    }

    /// How many nodes the connections are spread over (at least 1).
    let nodes: Int
    let driverNode: DriverNode

    /// The node room `room` is founded on and, by the owner hint, run by.
    func firstNode(ofRoom room: Int) -> Int { room % nodes }

    /// The node of the room's `k`-th viewer (0: the founder, on the first node).
    func node(ofViewer k: Int, room: Int) -> Int { (room + k) % nodes }

    /// The node of the room's `j`-th driver.
    func node(ofDriver j: Int, room: Int) -> Int {
        guard nodes > 1 else { return 0 }
        let local = driverNode == .first || (driverNode == .alternate && room % 2 == 0)
        return local ? firstNode(ofRoom: room) : (room + 1 + j % (nodes - 1)) % nodes
    }
}
