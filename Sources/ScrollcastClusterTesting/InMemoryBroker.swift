import ScrollcastCluster
import ScrollcastRooms

/// What Redis holds for a cluster, in memory, with the same rules as `ClusterScripts` (leases
/// with epochs and TTLs, the dead-holder rule, fencing): a whole cluster inside one test, every
/// node on one `RoomScheduler` (the manual one), with faults a test causes on purpose: an
/// outage (`goDown`/`comeBack`), a node's death (`kill`), and a node's freeze (its backend's
/// `freeze`/`thaw`: SIGSTOP and SIGCONT). Replies and messages are delivered
/// by the scheduler, never inside the call, as round trips are.
@RoomActor package final class InMemoryBroker {
    package let scheduler: RoomScheduler
    package let clock: RoomClock
    /// Holders are waited out by their TTL while the broker has been up for less than this (as
    /// the claim script does after a Redis restart), ms.
    package var settleMilliseconds: Double
    package private(set) var isUp = true
    package private(set) var upSince: Double
    private var leases: [String: (lease: RoomLease, expires: Double)] = [:]
    package private(set) var epochs: [String: UInt64] = [:]
    /// Each room's durable fields, as the Redis hash holds them.
    package private(set) var rooms: [String: [String: String]] = [:]
    package private(set) var logs: [String: [[UInt8]]] = [:]
    private var nodes: [String: InMemoryClusterBackend] = [:]
    /// Every payload published on room channels, for tests: (room, payload).
    package private(set) var published: [(room: String, payload: [UInt8])] = []
    /// Publishes refused because the publisher's lease was not the room's.
    package private(set) var fencedPublishes = 0
    /// A test's known-bad case: node messages for which this says true are lost on the way.
    package var losesNodeMessage: (([UInt8]) -> Bool)?
    /// A test's known-bad case: room-channel publishes for which this says true are lost on the
    /// way (as one made while the owner's command link is down is): stored, but delivered to none.
    package var losesPublish: (([UInt8]) -> Bool)?

    package init(scheduler: RoomScheduler, clock: RoomClock, settleMilliseconds: Double = 0) {
        self.scheduler = scheduler
        self.clock = clock
        self.settleMilliseconds = settleMilliseconds
        self.upSince = clock.nowMilliseconds()
    }

    /// A backend for node `nodeID` on this broker.
    package func backend(for nodeID: String) -> InMemoryClusterBackend {
        let backend = InMemoryClusterBackend(broker: self, nodeID: nodeID)
        nodes[nodeID] = backend
        return backend
    }

    /// The lease of `room`, if one is in force.
    package func lease(of room: String) -> RoomLease? {
        guard let entry = leases[room], entry.expires > clock.nowMilliseconds() else { return nil }
        return entry.lease
    }

    /// Every node's connections drop (the nodes notice at once, as hiredis does on a reset).
    package func goDown() {
        isUp = false
        for backend in nodes.values where backend.isAlive { backend.linkWentDown() }
    }

    /// The broker answers again, with its state kept (Redis's append-only file).
    package func comeBack() {
        isUp = true
        upSince = clock.nowMilliseconds()
        for backend in nodes.values where backend.isAlive { backend.linkCameUp() }
    }

    /// Node `nodeID`'s process dies: its connections close, so its node channel has no
    /// subscriber and nothing it sends arrives.
    package func kill(_ nodeID: String) {
        nodes[nodeID]?.isAlive = false
    }

    /// Node `nodeID` runs again (a frozen process thawing): its connections were never closed,
    /// so it neither reconnects nor learns it was away.
    package func revive(_ nodeID: String) {
        nodes[nodeID]?.isAlive = true
    }

    /// Runs `work` on the scheduler, as a reply comes back.
    func later(_ work: @escaping () -> Void) {
        scheduler.schedule(afterMilliseconds: 0, work)
    }

    // MARK: The scripts' rules

    func claim(room: String, node: String, leaseMilliseconds: Double) -> ClaimOutcome {
        let now = clock.nowMilliseconds()
        if let current = lease(of: room), current.node != node {
            let holderLives = nodes[current.node]?.isAlive ?? false
            if now - upSince < settleMilliseconds || holderLives {
                return .held(LeaseHolder(node: current.node, epoch: current.epoch))
            }
        }
        let epoch = (epochs[room] ?? 0) + 1
        epochs[room] = epoch
        let lease = RoomLease(room: room, node: node, epoch: epoch)
        leases[room] = (lease, now + leaseMilliseconds)
        return .granted(lease)
    }

    func renew(_ lease: RoomLease, leaseMilliseconds: Double) -> RenewOutcome {
        let current = self.lease(of: lease.room)
        if current == lease || (current == nil && epochs[lease.room] == lease.epoch) {
            leases[lease.room] = (lease, clock.nowMilliseconds() + leaseMilliseconds)
            return .renewed
        }
        return .lost(holder: current.map { LeaseHolder(node: $0.node, epoch: $0.epoch) })
    }

    func release(_ lease: RoomLease) {
        if self.lease(of: lease.room) == lease { leases[lease.room] = nil }
    }

    func publish(_ payload: [UInt8], frameSequence: UInt64?, under lease: RoomLease) -> WriteOutcome {
        guard self.lease(of: lease.room) == lease else {
            fencedPublishes += 1
            return .fenced
        }
        if let frameSequence { rooms[lease.room, default: [:]]["seq"] = String(frameSequence) }
        published.append((lease.room, payload))
        if losesPublish?(payload) == true { return .done }
        for backend in nodes.values where backend.isAlive && backend.subscriptions.contains(lease.room) {
            backend.deliver(payload, room: lease.room)
        }
        return .done
    }

    func send(_ payload: [UInt8], toNode node: String) {
        guard let backend = nodes[node], backend.isAlive, backend.isStarted, losesNodeMessage?(payload) != true else { return }
        backend.deliver(nodeMessage: payload)
    }

    func write(_ write: StoreWrite, under lease: RoomLease) -> WriteOutcome {
        guard self.lease(of: lease.room) == lease else { return .fenced }
        let room = lease.room
        switch write {
        case let .created(_, scene, keyDigest):
            logs[room] = nil
            rooms[room] = ["scene": scene, "key": keyDigest, "version": "0", "order": ""]
        case let .commitMove(_, rowMoveVersion, order):
            guard Int(rooms[room]?["version"] ?? "0") == rowMoveVersion - 1 else { return .outOfOrder }
            rooms[room, default: [:]]["version"] = String(rowMoveVersion)
            rooms[room, default: [:]]["order"] = order
        case let .checkpoint(_, offset):
            rooms[room, default: [:]]["rest"] = String(offset)
        case let .appendLog(_, lines, keep):
            logs[room, default: []].append(contentsOf: lines)
            logs[room] = keep < 1 ? nil : Array(logs[room, default: []].suffix(keep))
        }
        return .done
    }
}
