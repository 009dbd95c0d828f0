import WebSockets

/// One simulated browser: a viewer that only watches, or a driver that also plays a gesture
/// script. Lives on the client's service thread.
final class LoadConnection {
    enum Role: String { case viewer, driver }

    enum Phase {
        /// Not opened yet (waiting for its turn in the ramp).
        case waiting
        /// Opening, or joined but without a snapshot yet.
        case joining
        /// Snapshot received: frames count from here.
        case live
        /// Closed, by us or by the server, or never connected.
        case closed
    }

    let index: Int
    let room: String
    /// The room's number in the plan (its name is `PREFIX-number`).
    let roomNumber: Int
    let role: Role
    /// Which of `--url`'s nodes it connects to (always 0 with one URL).
    let node: Int
    /// The room's founder (cluster runs only): its first viewer, on the room's first node. The
    /// room's other connections open once it has its snapshot, so the room runs on that node.
    let isFounder: Bool
    /// Whether the node that runs the room (by the owner hint, the room's first node) is this
    /// connection's own: a driver's latency counts as local, otherwise as remote.
    let ownerIsLocal: Bool
    var id: ConnectionID?
    var phase: Phase = .waiting
    /// The server's name for this connection (`viewer` in the snapshot); frames name the driver by it.
    var viewerName: String?
    /// Sequence number of the last frame seen, and how late it arrived (ms after `sentAt`).
    var lastSeq: UInt64?
    var lastLagMs = 0.0
    /// Frames counted since the snapshot (whose frame sets `lastSeq`).
    var framesSinceSnapshot = 0

    // Driver state.
    var generator: GestureGenerator?
    var gesture: Gesture?
    var step = 0
    /// Planned monotonic time (ms) at which the current gesture began.
    var gestureOriginMs = 0.0
    var nextInputID: UInt64 = 1
    /// Inputs sent and not yet named by a frame (in the inputs stream: by a batch), oldest first.
    var pending = PendingInputs()

    // Inputs stream (`--stream inputs`).
    /// The last change this connection holds: its snapshot's `replica.changes`, then its
    /// batches'; nil before that, and once the server moved it to frames.
    var changesHeld: UInt64?
    /// The latest complete mark it received (a batch's or a beat's).
    var completeMark = -Double.infinity
    /// Driver inputs it holds whose room time its complete mark has not reached yet.
    var awaitingMark: [InputsRoom.Sent] = []
    /// Batches it received (the test fault `viewers-drop-batch` counts them).
    var batchesReceived = 0

    init(index: Int, room: String, roomNumber: Int = 0, role: Role, node: Int = 0, isFounder: Bool = false,
         ownerIsLocal: Bool = true) {
        self.index = index
        self.room = room
        self.roomNumber = roomNumber
        self.role = role
        self.node = node
        self.isFounder = isFounder
        self.ownerIsLocal = ownerIsLocal
    }
}

/// Inputs a driver sent and is waiting to see applied, in id order (ids only grow), so a
/// frame naming id N settles every entry up to N from the front.
struct PendingInputs {
    struct Entry {
        var id: UInt64
        var sentMs: Double
        /// Sent inside the measurement window, so its latency counts.
        var counted: Bool
    }

    private var entries: [Entry] = []
    private var head = 0

    var isEmpty: Bool { head == entries.count }
    var count: Int { entries.count - head }

    mutating func append(_ entry: Entry) { entries.append(entry) }

    /// Removes and returns every entry with `id ≤ upTo`.
    mutating func settle(upTo id: UInt64) -> ArraySlice<Entry> {
        let start = head
        while head < entries.count, entries[head].id <= id { head += 1 }
        let settled = entries[start..<head]
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
            return ArraySlice(settled)
        }
        return settled
    }

    /// Removes the entry for a refused input, wherever it is.
    @discardableResult
    mutating func remove(id: UInt64) -> Bool {
        guard let position = entries[head...].firstIndex(where: { $0.id == id }) else { return false }
        entries.remove(at: position)
        return true
    }
}
