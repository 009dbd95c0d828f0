import ScrollWire

/// What one run does, from the command line.
struct LoadPlan: Sendable {
    /// The server, or the cluster's nodes (`--url A,B,C`).
    var nodes: NodeList
    /// Where each room's drivers connect when there are several nodes (`--driver-node`).
    var driverNode: NodePlacement.DriverNode = .other
    /// The protocol version every connection speaks (`--protocol`).
    var wireVersion: WireVersion = .v2
    var rooms: Int
    var viewersPerRoom: Int
    var driversPerRoom: Int
    var script: GestureScript
    /// With `--replay`: the recording every driver plays instead of `script`.
    var recording: RecordedScript? = nil
    var seed: UInt64
    var durationSeconds: Double
    var rampSeconds: Double
    var roomPrefix: String
    /// A connection "keeps up" while its frames arrive within this many ms of their `sentAt`.
    var keptUpMs: Double
    /// Client threads (one WebSocket client each); rooms are dealt out to them round robin.
    var threads: Int
    /// `--replica`: every connection asks for the applied inputs and its frames are checked
    /// against a native replica of the engine (`RoomReplica`).
    var replica = false
    /// `--stream`: frames (the default) or the inputs stream (state, batches, hashed beats).
    var stream: ViewerStream = .frames
    /// `--batch-ms`: the batch period every connection asks for in the inputs stream (nil: the server's).
    var batchMs: Int? = nil
    /// `--test-fault`: a known-bad run, to show the inputs stream's figures can fail.
    var testFault: TestFault? = nil

    /// `--replica` in the frames stream: every frame checked against the room's replica.
    var checksFrames: Bool { replica && stream == .frames }
    /// `--replica` in the inputs stream: every beat checked against the room's replica.
    var checksBeats: Bool { replica && stream == .inputs }

    var connectionsPerRoom: Int { viewersPerRoom + driversPerRoom }
    var placement: NodePlacement { NodePlacement(nodes: nodes.count, driverNode: driverNode) }
    var totalConnections: Int { rooms * connectionsPerRoom }

    /// The rooms thread `thread` runs: every `threads`-th room, so room sizes stay balanced and
    /// a room's driver and viewers share one thread (and one clock for the latency).
    func rooms(ofThread thread: Int) -> [Int] {
        Array(stride(from: thread, to: rooms, by: threads))
    }

    /// Room `room`'s connections: drivers first, then viewers (as ever, so a driver's script
    /// seed, which comes from its index, is the same whatever the nodes), each on its node by
    /// `NodePlacement`. In a cluster run the room's first viewer is its founder.
    func connections(ofRoom room: Int) -> [LoadConnection] {
        let name = "\(roomPrefix)-\(room)"
        let placement = placement
        let owner = placement.firstNode(ofRoom: room)
        return (0..<connectionsPerRoom).map { member in
            let index = room * connectionsPerRoom + member
            let isDriver = member < driversPerRoom
            let node = isDriver ? placement.node(ofDriver: member, room: room)
                                : placement.node(ofViewer: member - driversPerRoom, room: room)
            let connection = LoadConnection(
                index: index, room: name, roomNumber: room, role: isDriver ? .driver : .viewer, node: node,
                isFounder: nodes.isCluster && member == driversPerRoom, ownerIsLocal: node == owner)
            if isDriver { connection.assignScript(of: self) }
            return connection
        }
    }

    /// How the plan spreads its connections: how many connect to each node, and how many drivers
    /// are on their room's first node (local) or another (remote).
    func spread() -> (connectionsPerNode: [Int], localDrivers: Int, remoteDrivers: Int) {
        let placement = placement
        var perNode = Array(repeating: 0, count: nodes.count)
        var local = 0
        for room in 0..<rooms {
            for viewer in 0..<viewersPerRoom { perNode[placement.node(ofViewer: viewer, room: room)] += 1 }
            for driver in 0..<driversPerRoom {
                let node = placement.node(ofDriver: driver, room: room)
                perNode[node] += 1
                if node == placement.firstNode(ofRoom: room) { local += 1 }
            }
        }
        return (perNode, local, rooms * driversPerRoom - local)
    }
}

/// `--test-fault` (tests only, hidden from --help): a known-bad run of `--stream inputs`, so a
/// test shows that its figures read badly when something is wrong.
enum TestFault: String, CaseIterable, Sendable {
    /// The room's replica leaves out the first change of every batch: its beats must mismatch,
    /// and it must ask keyframes.
    case replicaDropsChange = "replica-drops-change"
    /// Every viewer but the replica's ignores every tenth batch: missed changes must be counted.
    case viewersDropBatch = "viewers-drop-batch"
    /// Drivers send the script's points and wheel deltas unrounded (full doubles, 9 bytes each
    /// in a batch instead of 1–3): bytes per connection-second must read higher.
    case unroundedInputs = "unrounded-inputs"
}
