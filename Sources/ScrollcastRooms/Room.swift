import Dispatch
import ScrollEngine
import ScrollWire

/// One shared table and the viewers watching it. Everything here runs on the room thread; the
/// room never touches the network itself: its messages go out through its `RoomChannel`, its
/// durable state through the `RoomStore`, and `FramePacer` says when frames are due. An idle
/// room sends nothing. The room says when it next wants `tick()` (`nextTickDue`); the server
/// keeps one timer for the earliest room.
@RoomActor public final class Room: RoomEndpoint {
    /// The room's name (what viewers join by).
    public let name: String
    /// The catalogue name of the room's scene (told to viewers in the snapshot).
    public let sceneName: String
    /// `DriverKey.digest` of the room's key when it is locked: only viewers presenting the key
    /// may drive.
    public let driverKeyDigest: String?
    /// This node's right to run the room.
    public let lease: RoomLease

    private let clock: RoomClock
    private let wallClock: WallClock
    private let origin: Double
    let metrics: ServerMetrics
    let channel: RoomChannel
    private let store: RoomStore
    private(set) var scene: ScrollScene
    var viewers: [Viewer] = []
    var claim: (viewer: String, gesture: GestureKind)?
    private var pacer: FramePacer

    /// The latest time handed to the engine (room ms); inputs are never mapped before it.
    private(set) var lastInputTime: Double = 0
    private var lastApplied: AppliedInput?
    var sequence: UInt64 = 0
    var lastFrame: EffectFrame
    var lastFrameInput: AppliedInput?
    var lastFrameSentAt: Double
    /// Room time of the last `presence` broadcast.
    private var lastPresenceTime: Double = -.infinity
    /// Viewers joined or left since the last `presence`, which is not due yet.
    private var presencePending = false
    /// Joins and leaves are announced at most this often, ms (driver changes at once).
    static let presenceInterval = 250.0
    /// Number of the last row move applied (announced or waiting for its commit).
    private var rowVersion: Int
    /// The row order and move number the store last confirmed: what viewers were told.
    private var durableOrder: [[Int]]
    var durableVersion: Int
    /// Grows each time the room takes back a move the store failed to keep; completions of moves
    /// applied before that are stale (they fail too: each move is stored only on top of the one
    /// before it).
    private var moveGeneration = 0
    /// The content offset last given to `store.checkpoint`.
    private var checkpointedOffset: Double
    /// Viewers speaking each protocol version: a version is encoded only while someone speaks it.
    var viewerCounts: [WireVersion: Int] = [:]
    /// What the room's version-2 viewers have been sent of its texts (every frame is registered
    /// in it before it is encoded while any are here). Kept after the last one leaves, for its
    /// resume; a version-2 viewer joining afresh alone starts it anew.
    var texts = WireTextTable()
    /// This run of the room, for resumes (`Room+Resume.swift`).
    let life: UInt64 = Room.newLife()
    /// Reliable messages kept for resumes.
    var history: RoomHistory
    /// Viewers that asked for `applied` messages (`Room+Applied.swift`).
    var inputWatchers = 0
    /// What the room applied since its last frame, for a watcher joining before the next one.
    var appliedSinceFrame: [AppliedMessage] = []

    /// The texts the room's version-2 viewers have been sent (for tests).
    var wireTexts: WireTextTable { texts }

    /// Set once another node runs the room: late store completions must not announce anything.
    private var abandoned = false

    /// Called whenever `nextTickDue` may have changed (the registry keeps rooms' deadlines in
    /// a queue rather than asking every room).
    var tickDueMayHaveChanged: () -> Void = {}

    /// Room time (ms) since which the room has had no viewers, or nil while it has some.
    public private(set) var emptySince: Double?

    struct Viewer {
        let id: String
        let version: WireVersion
        let canDrive: Bool
        /// The room's key, for a viewer entitled to see it in its snapshot.
        let driverKey: String?
        var timeMapper = InputTimeMapper()
        var lastInputID: UInt64?
        /// Whether it asked to be told the room's life (to resume later).
        var resumable = false
        /// Whether it asked for `applied` messages.
        var watchesInputs = false
    }

    /// A room showing `configuration`, its clock starting now, run under `lease`, its frames
    /// numbered on from `firstSequence` (0 for a new life on one node). With a
    /// `driverKeyDigest`, only viewers presenting the matching key may drive. `rowMoveVersion`
    /// is the number of moves a restored room had made, `restingOffset` the content offset it
    /// came to rest at (nil: the top).
    public init(name: String, sceneName: String, configuration: SceneConfiguration, driverKeyDigest: String? = nil,
                rowMoveVersion: Int = 0, restingOffset: Double? = nil, lease: RoomLease, firstSequence: UInt64 = 0,
                framePeriod: Double = 1000.0 / 60, services: RoomServices) {
        self.name = name
        self.sceneName = sceneName
        self.driverKeyDigest = driverKeyDigest
        self.lease = lease
        self.clock = services.clock
        self.wallClock = services.wallClock
        self.origin = services.clock.nowMilliseconds()
        self.metrics = services.metrics
        self.store = services.store
        self.channel = services.relay.openChannel(for: lease)
        self.pacer = FramePacer(framePeriod: framePeriod)
        self.sequence = firstSequence
        self.history = RoomHistory(firstSequence: firstSequence)
        self.rowVersion = rowMoveVersion
        self.durableVersion = rowMoveVersion
        self.durableOrder = configuration.rowOrder
        self.scene = restingOffset.map { ScrollScene(configuration: configuration, restingAt: $0) }
            ?? ScrollScene(configuration: configuration)
        self.lastFrame = scene.frame(at: 0)
        self.lastFrame.sequence = firstSequence
        self.checkpointedOffset = lastFrame.contentOffset
        self.lastFrameSentAt = services.wallClock()
        self.emptySince = 0
    }

    /// Milliseconds since the room was created.
    public var now: Double { clock.nowMilliseconds() - origin }
    /// Whether only holders of the room's key may drive.
    public var isLocked: Bool { driverKeyDigest != nil }
    /// The viewer holding a gesture claim, if any.
    public var driver: String? { claim?.viewer }
    /// Room time (ms) at which the room next wants `tick()`: when a waiting input frame may go
    /// out, the next animation frame is due, or a deferred presence; nil while it has nothing to send.
    public var nextTickDue: Double? {
        let frameDue = pacer.nextDue(isAnimating: lastFrame.isAnimating)
        guard presencePending else { return frameDue }
        return min(frameDue ?? .infinity, lastPresenceTime + Self.presenceInterval)
    }

    /// `nextTickDue` on the room clock's own scale (what the server's timer is set on).
    public var nextTickDeadline: Double? { nextTickDue.map { $0 + origin } }

    // MARK: Viewers

    /// Adds a viewer speaking `version`: it gets the snapshot (scene, row order, latest frame) at
    /// once, and the other viewers get `presence`. `canDrive` is false for viewers of a locked room
    /// without its key; `driverKey` is the room's key, for a viewer entitled to see it in its
    /// snapshot.
    public func join(viewer id: String, sink: ViewerSink, version: WireVersion = .v1, canDrive: Bool = true,
                     driverKey: String? = nil, resumable: Bool = false, resume: ResumeRequest? = nil,
                     inputs: Bool = false) {
        restartTextsIfAlone(joining: version, resuming: resume != nil)
        viewers.append(Viewer(id: id, version: version, canDrive: canDrive, driverKey: canDrive ? driverKey : nil,
                              resumable: resumable || resume != nil, watchesInputs: inputs))
        viewerCounts[version, default: 0] += 1
        if inputs { inputWatchers += 1 }
        channel.attach(id, sink: sink, version: version, watchesInputs: inputs)
        emptySince = nil
        answerJoin(of: id, resuming: resume)
        if inputs { sendAppliedState(to: id, version: version) }
        announcePresence(urgent: false, joiner: id)
    }

    /// Adds the viewer of `join`, deciding whether it may drive: always in an open room; in a
    /// locked one when this join created it (`createdHere`) or presents the room's key.
    public func admit(_ join: ViewerJoin, createdHere: Bool) {
        let holdsKey = DriverKey.matches(digest: driverKeyDigest, candidate: join.request.driverKey)
        let canDrive = !isLocked || createdHere || holdsKey
        let key = !isLocked ? nil : createdHere ? join.newKey : holdsKey ? join.request.driverKey : nil
        self.join(viewer: join.viewer, sink: join.sink, version: join.version, canDrive: canDrive, driverKey: key,
                  resumable: join.request.wantsResumePoint, resume: join.request.resume, inputs: join.request.inputs)
    }

    /// Whether viewer `id` is here.
    public func hasViewer(_ id: String) -> Bool {
        viewers.contains { $0.id == id }
    }

    /// Sends viewer `id` the snapshot (scene, row order, latest frame) again, e.g. to a viewer on
    /// another node that missed messages while the cluster's broker was away.
    public func sendSnapshot(to id: String) {
        guard let viewer = viewers.first(where: { $0.id == id }) else { return }
        let snapshot = Snapshot(
            room: name, viewer: id, viewers: viewers.count, driver: claim?.viewer,
            configuration: scene.configuration, sections: scene.sections, frame: lastFrame,
            frameInput: lastFrameInput, frameSentAt: lastFrameSentAt,
            driverKey: viewer.driverKey, sceneName: sceneName, locked: isLocked,
            resumePoint: viewer.resumable ? resumePoint : nil)
        switch viewer.version {
        case .v1:
            channel.send(RoomMessage(v1: OutgoingMessage(utf8: ServerMessageEncoder.snapshot(snapshot))), to: .viewer(id))
        case .v2:
            // The snapshot carries every text the room's v2 viewers have. Its frame can show texts
            // the table lacks only when no other v2 viewer was here (frames are registered only
            // while one is); any other v2 viewer gets them too, so all of them hold the table.
            let encoded = ServerMessageEncoderV2.snapshot(snapshot, texts: &texts)
            if let new = encoded.texts {
                recordSent(.texts(new))
                channel.send(RoomMessage(v2: OutgoingMessage(binary: new)), to: .everyoneExcept(id))
            }
            channel.send(RoomMessage(v2: OutgoingMessage(binary: encoded.snapshot)), to: .viewer(id))
        }
    }

    /// Removes a viewer. A gesture it was driving ends as a cancel, so a lifted row goes back
    /// and someone else may drive at once.
    public func leave(viewer id: String) {
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        let leaving = viewers.remove(at: index)
        viewerCounts[leaving.version, default: 1] -= 1
        if leaving.watchesInputs { inputWatchers -= 1 }
        channel.detach(id)
        let wasDriving = claim?.viewer == id
        if let claim, claim.viewer == id {
            let time = max(now, lastInputTime)
            let cancel = InputEvent(id: leaving.lastInputID ?? 0, time: time, kind: claim.gesture.cancellation)
            // The cancel cannot be refused for a valid gesture; if the engine disagrees the
            // claim still goes, so the room never stays locked by a departed viewer.
            if (try? scene.apply(cancel)) != nil {
                lastInputTime = time
                store.append(.cancelOnLeave(viewer: id, event: cancel), toRoom: name)
                relayApplied(cancel, viewer: id, cause: .leave)
            }
            self.claim = nil
            requestFrame()
        }
        if viewers.isEmpty { emptySince = now }
        announcePresence(urgent: wasDriving)
    }

    /// The room is gone from memory: nothing more reaches its viewers. Its offset is
    /// checkpointed first, so it comes back where it was.
    func close() {
        checkpoint(offset: scene.frame(at: max(now, lastInputTime)).contentOffset)
        channel.close()
    }

    /// The room is gone from memory because another node runs it now: nothing more reaches its
    /// viewers or its store (no checkpoint either: the store is the new owner's).
    func abandon() {
        abandoned = true
        channel.close()
    }

    // MARK: Input

    /// Applies one input from a viewer, or answers it with `refused`.
    public func handle(_ input: InputMessage, from id: String) {
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        guard viewers[index].canDrive else {
            return refuse(input.id, .locked, "room '\(name)' is locked; join with its driver key to drive", to: id)
        }
        if let claim, claim.viewer != id {
            return refuse(input.id, .driving, "\(claim.viewer) is driving; try again when the gesture ends", to: id)
        }
        let startsGesture = input.kind.startsGesture
        if startsGesture != nil, claim != nil {
            return refuse(input.id, .gestureInProgress, "a gesture is already in progress; end it first", to: id)
        }
        let current = now
        let time: Double
        do {
            time = try viewers[index].timeMapper.map(
                clientTime: input.clientTime, now: current, floor: lastInputTime,
                startsGesture: startsGesture != nil)
        } catch {
            switch error {
            case .wentBackwards(let previous, let got):
                return refuse(input.id, .outOfOrder, "t went backwards: \(got) after \(previous)", to: id)
            }
        }
        let event = InputEvent(id: input.id, time: time, kind: input.kind)
        let changes: [SceneChange]
        do {
            if store.isAcceptingWrites {
                changes = try scene.apply(event)
            } else {
                // The store cannot keep a row move: an explicit long press (which exists to lift
                // a row) is refused before anything is lifted, and an input that would move a
                // row (a drop) is tried on a copy and never applied to the room's scene.
                if startsGesture == .longPress { return refuseUnavailable(input, at: time, from: index) }
                var trial = scene
                changes = try trial.apply(event)
                if !changes.isEmpty { return refuseUnavailable(input, at: time, from: index) }
                scene = trial
            }
        } catch {
            return refuse(input.id, .invalidInput, error.reason, to: id)
        }
        metrics.inputs.increment()
        store.append(.input(viewer: id, event: event), toRoom: name)
        relayApplied(event, viewer: id, cause: .input)
        lastInputTime = time
        lastApplied = AppliedInput(viewer: id, id: input.id)
        viewers[index].lastInputID = input.id
        if let gesture = startsGesture {
            claim = (id, gesture)
            announcePresence(urgent: true)
        } else if let gesture = input.kind.endsGesture, claim?.viewer == id, claim?.gesture == gesture {
            claim = nil
            announcePresence(urgent: true)
        }
        for change in changes { commit(change, by: id) }
        requestFrame()
    }

    static let unavailableReason = "row moves are paused: the server cannot save them right now; scrolling still works"

    /// Refuses `input` of viewer `index` with `unavailable`. A gesture of that viewer in
    /// progress (a drop was refused) ends as a cancel in its place, so a lifted row goes back
    /// where it was and the room is free to drive.
    private func refuseUnavailable(_ input: InputMessage, at time: Double, from index: Int) {
        let id = viewers[index].id
        refuse(input.id, .unavailable, Self.unavailableReason, to: id)
        metrics.unavailableRefusals.increment()
        guard let claim, claim.viewer == id else { return }
        let cancel = InputEvent(id: input.id, time: time, kind: claim.gesture.cancellation)
        if (try? scene.apply(cancel)) != nil {
            store.append(.cancelOnLeave(viewer: id, event: cancel), toRoom: name)
            relayApplied(cancel, viewer: id, cause: .unavailable)
        }
        lastInputTime = time
        viewers[index].lastInputID = input.id
        self.claim = nil
        announcePresence(urgent: true)
        requestFrame()
    }

    /// Answers an input of viewer `viewer` with `refused`.
    public func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to viewer: String) {
        metrics.refusedInputs.increment()
        guard let version = viewers.first(where: { $0.id == viewer })?.version else { return }
        let message = version == .v1
            ? RoomMessage(v1: OutgoingMessage(utf8: ServerMessageEncoder.refused(input: inputID, code: code, reason: reason)))
            : RoomMessage(v2: OutgoingMessage(binary: ServerMessageEncoderV2.refused(input: inputID, code: code, reason: reason)))
        channel.send(message, to: .viewer(viewer))
    }

    /// Whether any viewer speaks `version`.
    private func speaks(_ version: WireVersion) -> Bool {
        viewerCounts[version, default: 0] > 0
    }

    /// A message for every viewer, encoded in each version someone speaks.
    private func forEveryVersion(v1: () -> [UInt8], v2: () -> [UInt8]) -> RoomMessage {
        RoomMessage(v1: speaks(.v1) ? OutgoingMessage(utf8: v1()) : nil,
                    v2: speaks(.v2) ? OutgoingMessage(binary: v2()) : nil)
    }

    // MARK: Frames

    /// Sends what is due: a deferred presence, a waiting input frame once half a period has
    /// passed since the last frame, or the next animation frame. Calling it early does nothing.
    public func tick() {
        let current = now
        if presencePending, current >= lastPresenceTime + Self.presenceInterval - pacer.timerSlack {
            broadcastPresence(except: nil, at: current)
        }
        if let reason = pacer.frameDue(at: current, isAnimating: lastFrame.isAnimating) {
            emitFrame(at: current, for: reason)
        }
    }

    private func requestFrame() {
        let current = now
        if pacer.inputArrived(at: current) { emitFrame(at: current, for: .input) }
        tickDueMayHaveChanged()
    }

    private func emitFrame(at current: Double, for reason: FramePacer.Reason) {
        // Marks only: the deadline is read once the room is done (frame sent or skipped).
        tickDueMayHaveChanged()
        let frameTime = Self.frameTime(max(now, lastInputTime))
        var frame = scene.frame(at: frameTime)
        // Time alone changed nothing a viewer would see (e.g. the hold before a row lifts): no frame.
        if reason == .animation, lastApplied == lastFrameInput, frame.showsTheSame(as: lastFrame) {
            return pacer.frameSkipped(at: current)
        }
        pacer.frameSent(at: current, for: reason)
        appliedSinceFrame.removeAll(keepingCapacity: true)
        sequence += 1
        frame.sequence = sequence
        store.append(.frame(sequence: sequence, time: frameTime), toRoom: name)
        let sentAt = wallClock()
        let started = DispatchTime.now().uptimeNanoseconds
        // Once per version someone speaks. Version 2's first: the texts its frame shows for the
        // first time go out reliably, which every viewer's connection writes before the frame.
        var message = RoomMessage()
        if speaks(.v2) {
            let encoded = ServerMessageEncoderV2.frame(frame, input: lastApplied, sentAt: sentAt, texts: &texts,
                                                       ahead: { [scene] in WireTextTable.upcoming(around: frame, in: scene.sections) })
            if let new = encoded.texts {
                recordSent(.texts(new))
                channel.send(RoomMessage(v2: OutgoingMessage(binary: new)), to: .everyone)
            }
            message.v2 = OutgoingMessage(binary: encoded.frame)
        }
        if speaks(.v1) {
            message.v1 = OutgoingMessage(utf8: ServerMessageEncoder.frame(frame, input: lastApplied, sentAt: sentAt))
        }
        metrics.frameEncodeTime.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
        lastFrame = frame
        lastFrameInput = lastApplied
        lastFrameSentAt = sentAt
        relayRest(of: frame)
        channel.sendFrame(message, sequence: sequence)
        if !frame.isAnimating, claim == nil { checkpoint(offset: frame.contentOffset) }
    }

    /// Tells the store where the room rests, unless it already knows.
    private func checkpoint(offset: Double) {
        guard offset != checkpointedOffset, offset.isFinite else { return }
        checkpointedOffset = offset
        store.checkpoint(RoomCheckpoint(room: name, restingOffset: offset))
    }

    // MARK: Reliable fan-out

    /// A row move is announced only once the store has it, so no viewer sees a move that a
    /// crash undoes.
    private func commit(_ change: SceneChange, by id: String) {
        switch change {
        case .rowMoved(let rowID, let from, let to):
            rowVersion += 1
            let version = rowVersion
            let generation = moveGeneration
            let record = RowMoveRecord(room: name, rowID: rowID, from: from, to: to, viewer: id, version: version,
                                       rowOrder: scene.configuration.rowOrder)
            store.commitRowMove(record) { [weak self, metrics] result in
                switch result {
                case .success:
                    // A room gone meanwhile has closed its channel: nobody is left to tell.
                    guard let self, !self.abandoned else { return }
                    self.durableOrder = record.rowOrder
                    self.durableVersion = version
                    self.recordSent(.rowMoved(RoomHistory.RowMove(rowID: rowID, from: from, to: to, by: id, version: version)))
                    self.channel.send(self.forEveryVersion(
                        v1: { ServerMessageEncoder.rowMoved(rowID: rowID, from: from, to: to, by: id, version: version) },
                        v2: { ServerMessageEncoderV2.rowMoved(rowID: rowID, from: from, to: to, by: id, version: version) }),
                        to: .everyone)
                case .failure:
                    metrics.storeFailures.increment()
                    if let self, !self.abandoned, generation == self.moveGeneration { self.takeBackUnstoredMoves() }
                }
            }
        }
    }

    /// A move failed to commit after the room applied it (the store failed between the check
    /// and the write): the room goes back to the order the store has, which is the order its
    /// viewers were told, so nobody is left with an order the store does not have. Moves
    /// applied after the failed one are taken back too (the store refuses them, as they were
    /// built on it). A gesture in progress ends as a cancel; the content stays where it is.
    private func takeBackUnstoredMoves() {
        moveGeneration += 1
        rowVersion = durableVersion
        let time = max(now, lastInputTime)
        if let claim, let index = viewers.firstIndex(where: { $0.id == claim.viewer }) {
            let cancel = InputEvent(id: viewers[index].lastInputID ?? 0, time: time, kind: claim.gesture.cancellation)
            if (try? scene.apply(cancel)) != nil {
                store.append(.cancelOnLeave(viewer: claim.viewer, event: cancel), toRoom: name)
                relayApplied(cancel, viewer: claim.viewer, cause: .takeBack)
            }
            self.claim = nil
            announcePresence(urgent: true)
        }
        if let reverted = scene.reorderedAtRest(durableOrder, at: time) {
            scene = reverted
            relayRowOrder(durableOrder, at: time)
        }
        lastInputTime = time
        requestFrame()
    }

    /// Tells the viewers who is here and who drives. A change of driver goes out at once; joins
    /// and leaves at most once per `presenceInterval`, so a burst of joins costs viewers × bursts
    /// messages, not viewers²: a room of 500 filling in 3 s once sent 250,000 presences and
    /// overflowed the readers' queues. The deferred message carries the latest state, so nothing
    /// is lost but intermediate counts. The joiner's own snapshot already says what presence would.
    private func announcePresence(urgent: Bool, joiner: String? = nil) {
        let current = now
        if urgent || current >= lastPresenceTime + Self.presenceInterval {
            broadcastPresence(except: joiner, at: current)
        } else {
            presencePending = true
            tickDueMayHaveChanged()
        }
    }

    private func broadcastPresence(except excluded: String?, at time: Double) {
        presencePending = false
        tickDueMayHaveChanged()
        guard viewers.contains(where: { $0.id != excluded }) else { return }
        lastPresenceTime = time
        let (count, driver, locked) = (viewers.count, claim?.viewer, isLocked)
        let message = forEveryVersion(v1: { ServerMessageEncoder.presence(viewers: count, driver: driver, locked: locked) },
                                      v2: { ServerMessageEncoderV2.presence(viewers: count, driver: driver, locked: locked) })
        channel.send(message, to: excluded.map { .everyoneExcept($0) } ?? .everyone)
    }
}
