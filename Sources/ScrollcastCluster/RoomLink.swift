import ScrollcastServer
import ScrollWire

/// One room as this node sees it while it has viewers of it, or runs it: the endpoint of the
/// viewers connected here, whichever node runs the room. It is in one of three modes:
///
/// - **claiming**: asking Redis for the lease (first join, or taking over from a dead owner);
///   inputs wait.
/// - **owner**: the room runs here; viewers connected here are in it directly, and viewers of
///   other nodes are in it through their nodes' rosters (`RemoteViewerSink`).
/// - **remote**: another node runs it; this node subscribes to the room's channel, hands what
///   the owner publishes to its viewers, and sends the owner its roster and their inputs.
///
/// Everything here runs on the room thread.
final class RoomLink: RoomEndpoint {
    let name: String
    unowned let node: ClusterNode

    enum Mode {
        case claiming
        case owner(Room)
        case remote
    }

    var mode: Mode = .claiming
    /// The node running the room (remote mode), if known.
    var owner: String?
    /// The highest owner epoch seen: anything published under an older one is stale.
    var epoch: UInt64 = 0
    /// The highest frame number handed to viewers here (a takeover numbers on from it).
    var lastSequence: UInt64 = 0
    /// Whether this link's room channel subscription is confirmed (remote mode).
    var subscribed = false
    /// `ClusterNode.subscriberLosses` when it was confirmed: a confirmation after a loss means
    /// messages may have been missed; one without is the same subscription confirmed twice.
    var subscribedAfterLosses = 0
    private var claimInFlight = false
    /// True until the first claim settles: a failure then closes the viewers waiting for it.
    var firstClaim = true
    var viewers: [LocalViewer] = []
    var delivery: LocalViewers
    /// Viewers here waiting for a snapshot from the owner (joined, or resynchronising): they get
    /// nothing else until it comes, so no frame older than their snapshot reaches them after it.
    var awaitingSnapshot: Set<String> = []
    var waitingInputs: [(InputMessage, String)] = []
    /// Viewers of other nodes in the room run here, by node (owner mode).
    var remoteNodes: [String: RemoteNode] = [:]
    /// When this node's last viewer of the room left (remote mode): the link stays subscribed a
    /// while for a viewer that comes back (ClusterConfiguration.idleFollowMilliseconds).
    var emptySince: Double?

    /// Inputs kept while the lease is being claimed; the page sends none before its snapshot.
    static let mostWaitingInputs = 256

    struct LocalViewer {
        var join: ViewerJoin
        /// Bumped when the viewer needs a fresh snapshot (this node missed messages).
        var generation = 0
        /// Whether its join made the room here (so it may drive a locked room: it holds the key).
        var createsRoom = false
    }

    struct RemoteNode {
        var viewers: [String: Int] = [:]
        var lastRoster: Double
    }

    init(name: String, node: ClusterNode) {
        self.name = name
        self.node = node
        self.delivery = LocalViewers(metrics: node.serverMetrics)
    }

    var isEmpty: Bool { viewers.isEmpty }
    var isOwner: Bool { if case .owner = mode { return true } else { return false } }
    var isRemote: Bool { if case .remote = mode { return true } else { return false } }

    // MARK: Viewers connected here

    /// A viewer here joins the room.
    func add(_ join: ViewerJoin) {
        var viewer = LocalViewer(join: join)
        viewer.createsRoom = viewers.isEmpty && !isOwner && firstClaim
        viewers.append(viewer)
        emptySince = nil
        switch mode {
        case .owner(let room):
            room.admit(join, createdHere: false)
            answered(join.viewer)
            node.roomsChanged()
        case .remote:
            awaitSnapshot(join.viewer)
            sendRoster()
        case .claiming:
            break
        }
    }

    func handle(_ input: InputMessage, from viewer: String) {
        switch mode {
        case .owner(let room):
            room.handle(input, from: viewer)
            node.roomsChanged()
        case .remote where !subscribed:
            if waitingInputs.count < Self.mostWaitingInputs { waitingInputs.append((input, viewer)) }
        case .remote:
            guard let owner, node.isConnected else {
                return refuse(input.id, .unavailable, "the room runs on another node, which cannot be reached right now; try again", to: viewer)
            }
            node.send(.input(room: name, node: node.nodeID, viewer: viewer, text: ClientMessageEncoder.input(input)), to: owner)
        case .claiming:
            if waitingInputs.count < Self.mostWaitingInputs { waitingInputs.append((input, viewer)) }
        }
    }

    func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to viewer: String) {
        if case .owner(let room) = mode { return room.refuse(inputID, code, reason, to: viewer) }
        guard let join = viewers.first(where: { $0.join.viewer == viewer })?.join else { return }
        node.serverMetrics.refusedInputs.increment()
        join.sink.sendReliable(join.version == .v1
            ? OutgoingMessage(utf8: ServerMessageEncoder.refused(input: inputID, code: code, reason: reason))
            : OutgoingMessage(binary: ServerMessageEncoderV2.refused(input: inputID, code: code, reason: reason)))
    }

    func leave(viewer: String) {
        viewers.removeAll { $0.join.viewer == viewer }
        delivery.detach(viewer)
        awaitingSnapshot.remove(viewer)
        waitingInputs.removeAll { $0.1 == viewer }
        switch mode {
        case .owner(let room):
            room.leave(viewer: viewer)
            node.roomsChanged()
        case .remote:
            // An empty link stays subscribed for a while (ClusterNode.watchOwners lets it go).
            sendRoster()
        case .claiming:
            break
        }
    }

    // MARK: Claiming

    /// Asks for the lease (first join, or the owner seems gone). Nothing happens while a claim
    /// is under way.
    func claim() {
        guard !claimInFlight, !isOwner else { return }
        claimInFlight = true
        node.claim(room: name) { [self] outcome in
            claimInFlight = false
            switch outcome {
            case .success(.granted(let lease)):
                take(lease)
            case .success(.held(let holder, let holderEpoch)):
                follow(holder, epoch: holderEpoch)
            case .failure(let error):
                if firstClaim { fail(.clusterUnavailable(error.message)) }
            }
        }
    }

    /// This node holds the lease: restore the room from Redis and run it here.
    private func take(_ lease: RoomLease) {
        epoch = max(epoch, lease.epoch)
        node.roomStore.load(room: name) { [self] result in
            guard node.holds(lease) else { return }
            switch result {
            case .failure(let error):
                node.release(lease)
                if firstClaim { fail(.storeUnavailable(error.message)) }
            case .success(let stored):
                run(lease, stored: stored?.0, storedSequence: stored?.1 ?? 0)
            }
        }
    }

    private func run(_ lease: RoomLease, stored: StoredRoom?, storedSequence: UInt64) {
        let creator = viewers.first { $0.createsRoom }?.join
        let scene = creator?.sceneName(in: node.registry.scenes) ?? node.registry.scenes.defaultName
        let settings = stored?.settings ?? RoomSettings(name: name, sceneName: scene,
                                                        driverKeyDigest: creator?.newKey.map(DriverKey.digest(of:)))
        guard let (room, origin) = node.registry.adopt(settings, stored: stored, lease: lease,
                                                      firstSequence: max(storedSequence, lastSequence)) else {
            node.release(lease)
            return fail(.tooManyRooms(limit: node.registry.maxRooms))
        }
        let wasRemote = isRemote
        if wasRemote, owner != nil { node.metrics.takeovers.increment() }
        mode = .owner(room)
        owner = node.nodeID
        firstClaim = false
        delivery.removeAll()
        awaitingSnapshot = []
        if subscribed || wasRemote { node.unsubscribe(room: name) }
        subscribed = false
        for index in viewers.indices {
            let createdHere = origin == .created && viewers[index].createsRoom
            room.admit(viewers[index].join, createdHere: createdHere)
            if createdHere, let key = viewers[index].join.newKey {
                // From now on this viewer holds the key like anyone it was shared with: a later
                // owner checks it like any other.
                viewers[index].join.request.driverKey = key
            }
            viewers[index].createsRoom = false
            viewers[index].join.request.resume = nil
        }
        let inputs = waitingInputs
        waitingInputs = []
        for (input, viewer) in inputs { room.handle(input, from: viewer) }
        node.announceOwner(of: name, lease: lease)
        node.logger.info("running room", metadata: ["room": "\(name)", "lease": "\(lease)", "origin": "\(origin)",
                                                    "firstSeq": "\(max(storedSequence, lastSequence))"])
        node.roomsChanged()
    }

    /// Another node runs the room: receive from it, tell it who watches here.
    private func follow(_ holder: String, epoch holderEpoch: UInt64) {
        guard holderEpoch >= epoch else { return }
        let changed = owner != holder || holderEpoch != epoch
        epoch = holderEpoch
        owner = holder
        if firstClaim || !isRemote {
            firstClaim = false
            mode = .remote
            for viewer in viewers { awaitSnapshot(viewer.join.viewer) }
            listen()
        } else if changed {
            resynchronise()
        }
    }

    /// Subscribes to the room's channel; the roster goes to the owner once Redis confirms it,
    /// so nothing the owner sends in answer (the snapshots) can be published before this node
    /// listens.
    func listen() {
        subscribed = false
        if node.subscribe(room: name) { subscriptionConfirmed() }
    }

    /// Viewer `id` had the answer to its join (snapshot or `resumed`): its `resume` is spent, and
    /// any later admission (a new owner, a fresh snapshot) must not replay from that point again.
    func answered(_ id: String) {
        guard let index = viewers.firstIndex(where: { $0.join.viewer == id }) else { return }
        viewers[index].join.request.resume = nil
    }

    /// The room cannot be had: its waiting viewers are closed with the reason.
    private func fail(_ failure: JoinFailure) {
        node.logger.warning("cannot place viewers in room", metadata: ["room": "\(name)", "reason": "\(failure)"])
        for viewer in viewers { viewer.join.sink.close(failure.closeReason) }
        viewers = []
        waitingInputs = []
        node.drop(self)
    }

}

extension RelayEnvelope {
    /// The envelope's forms as a room message for local viewers.
    var message: RoomMessage {
        RoomMessage(v1: v1.map { OutgoingMessage(utf8: $0) }, v2: v2.map { OutgoingMessage(binary: $0) })
    }
}
