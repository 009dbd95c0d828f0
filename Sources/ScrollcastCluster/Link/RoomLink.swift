import ScrollcastRooms
import ScrollWire

/// One room as this node sees it while it has viewers of it, or runs it: the endpoint of the
/// viewers connected here, whichever node runs the room, and the driver of the room's
/// `LinkState`. Every change of state goes through `LinkMachine.next`; this class only keeps
/// the viewers, the room run here, and the queues, and executes the effects.
///
/// Everything here runs on the room thread.
final class RoomLink: RoomEndpoint {
    let name: String
    unowned let node: ClusterNode
    var state: LinkState = .claiming(seenEpoch: 0)

    /// The room, while it runs here (owner).
    var room: Room?
    /// The highest frame number handed to viewers here (a takeover numbers on from it).
    var lastSequence: UInt64 = 0
    var viewers: [LocalViewer] = []
    var delivery: LocalViewers
    /// Viewers here waiting for a snapshot from the owner (joined, or resynchronising): they get
    /// nothing else until it comes, so no frame older than their snapshot reaches them after it.
    var awaitingSnapshot: Set<String> = []
    /// When a roster first asked the owner for the snapshot each of those waits for (room clock ms).
    var snapshotAskedAt: [String: Double] = [:]
    var waitingInputs: [(InputMessage, String)] = []
    /// Inputs for the room run here that came while its lease was in doubt (RoomLink+Doubt.swift).
    var inputsInDoubt: [InputInDoubt] = []
    /// Viewers of other nodes in the room run here, by node (owner).
    var remoteNodes: [String: RemoteNode] = [:]

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

    /// Runs `event` through the state machine and executes what it asks.
    func step(_ event: LinkEvent) {
        let (next, effects) = LinkMachine.next(state, on: event)
        state = next
        for effect in effects { perform(effect) }
    }

    // MARK: Viewers connected here

    /// A viewer here joins the room.
    func add(_ join: ViewerJoin) {
        var viewer = LocalViewer(join: join)
        viewer.createsRoom = viewers.isEmpty && state.placesFirstViewers
        viewers.append(viewer)
        step(.viewerJoined(join.viewer))
    }

    func handle(_ input: InputMessage, from viewer: String) {
        if keptInDoubt(input, viewer: viewer, from: nil) { return }
        switch LinkMachine.route(state, connected: node.backend.isConnected) {
        case .apply:
            room?.handle(input, from: viewer)
        case .forward(let owner):
            node.send(.input(room: name, node: node.nodeID, viewer: viewer, input: input), to: owner)
        case .wait:
            if waitingInputs.count < Self.mostWaitingInputs { waitingInputs.append((input, viewer)) }
        case .refuse:
            refuse(input.id, .unavailable, "the room runs on another node, which cannot be reached right now; try again", to: viewer)
        }
    }

    func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to viewer: String) {
        if let room { return room.refuse(inputID, code, reason, to: viewer) }
        refuseHere(inputID, code, reason, to: viewer)
    }

    /// Refuses an input (`inputID` nil: a sharing message) of viewer `viewer` here straight to
    /// its connection, not through a room (one run here may be stale, its messages held back and
    /// then discarded).
    func refuseHere(_ inputID: UInt64?, _ code: RefusalCode, _ reason: String, to viewer: String) {
        guard let join = viewers.first(where: { $0.join.viewer == viewer })?.join else { return }
        if inputID != nil { node.serverMetrics.refusedInputs.increment() }
        join.sink.sendReliable(.refused(input: inputID, code: code, reason: reason, version: join.version))
    }

    func leave(viewer: String) {
        viewers.removeAll { $0.join.viewer == viewer }
        delivery.detach(viewer)
        awaitingSnapshot.remove(viewer)
        waitingInputs.removeAll { $0.1 == viewer }
        inputsInDoubt.removeAll { $0.node == nil && $0.viewer == viewer }
        room?.leave(viewer: viewer)
        step(.viewerLeft)
    }

    /// Viewer `id` had the answer to its join (snapshot or `resumed`): its `resume` is spent, and
    /// any later admission (a new owner, a fresh snapshot) must not replay from that point again.
    func answered(_ id: String) {
        guard let index = viewers.firstIndex(where: { $0.join.viewer == id }) else { return }
        viewers[index].join.request.resume = nil
    }

    // MARK: Effects

    func perform(_ effect: LinkEffect) {
        switch effect {
        case .claim:
            node.claim(room: name) { [self] result in
                switch result {
                case .success(.granted(let lease)): step(.claimGranted(lease))
                case .success(.held(let holder)): step(.claimHeld(holder))
                case .failure(let error): step(.claimFailed(error.message))
                }
            }
        case .load(let lease):
            node.roomStore.load(room: name) { [self] result in
                switch result {
                case .success(let loaded): step(.loaded(lease, loaded))
                case .failure(let error): step(.loadFailed(lease, error.message))
                }
            }
        case let .run(lease, loaded, takeover):
            run(lease, loaded: loaded, takeover: takeover)
        case .release(let lease):
            node.release(lease)
        case .stopRoom:
            refuseInputsInDoubt()
            room = nil
            remoteNodes = [:]
        case .subscribe:
            if node.backend.subscribe(room: name) { step(.subscribed(losses: node.subscriberLosses)) }
        case .unsubscribe:
            node.backend.unsubscribe(room: name)
        case .sendRoster:
            sendRoster()
        case .awaitSnapshots:
            for viewer in viewers { awaitSnapshot(viewer.join.viewer) }
        case .resynchronise:
            for index in viewers.indices {
                viewers[index].generation += 1
                awaitSnapshot(viewers[index].join.viewer)
            }
        case .admit(let id):
            guard let room, let join = viewers.first(where: { $0.join.viewer == id })?.join else { return }
            room.admit(join, createdHere: false)
            answered(id)
        case .awaitSnapshot(let id):
            awaitSnapshot(id)
        case .replayWaitingInputs:
            let inputs = waitingInputs
            waitingInputs = []
            for (input, viewer) in inputs { handle(input, from: viewer) }
        case .deliver, .dropStale:
            // Handled by `deliver(_:)`, which holds the envelope.
            break
        case .dropSilentNodes:
            dropSilentNodes(now: node.clock.nowMilliseconds(), timeout: node.configuration.rosterTimeoutMilliseconds)
        case .fail(let failure):
            node.logger.warning("cannot place viewers in room", metadata: ["room": "\(name)", "reason": "\(failure)"])
            for viewer in viewers { viewer.join.sink.close(failure.closeReason) }
            viewers = []
            waitingInputs = []
        case .forget:
            node.drop(self)
        }
    }

    /// This node holds the lease and read the room: run it here.
    private func run(_ lease: RoomLease, loaded: LoadedRoom?, takeover: Bool) {
        let creator = viewers.first { $0.createsRoom }?.join
        let scene = creator?.sceneName(in: node.registry.scenes) ?? node.registry.scenes.defaultName
        let settings = loaded?.stored.settings ?? RoomSettings(name: name, sceneName: scene,
                                                               driverKeyDigest: creator?.newKey.map(DriverKey.digest(of:)))
        let firstSequence = max(loaded?.sequence ?? 0, lastSequence)
        guard let (room, origin) = node.registry.adopt(settings, stored: loaded?.stored, lease: lease,
                                                      firstSequence: firstSequence) else {
            // A stored room whose scene this node does not have (an upload Redis could not give).
            let failure: JoinFailure = node.registry.scenes.contains(settings.sceneName)
                ? .tooManyRooms(limit: node.registry.maxRooms) : .unknownScene(settings.sceneName)
            return step(.roomRefused(lease, failure))
        }
        if takeover { node.metrics.takeovers.increment() }
        self.room = room
        delivery.removeAll()
        awaitingSnapshot = []
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
                                                    "firstSeq": "\(firstSequence)"])
    }
}

extension RelayEnvelope {
    /// The envelope's forms as a room message for local viewers.
    var message: RoomMessage {
        RoomMessage(v1: v1.map { OutgoingMessage(utf8: $0) }, v2: v2.map { OutgoingMessage(binary: $0) })
    }
}
