import Dispatch
import ScrollEngine
import ScrollWire

/// One shared table and the viewers watching it. Everything here runs on the room thread; the
/// room never touches the network itself: its messages go out through its `RoomChannel`, its
/// durable state through the `RoomStore`, and `FramePacer` says when frames are due. An idle
/// room sends nothing. The room says when it next wants `tick()` (`nextTickDue`), and tells its
/// registry whenever that may have moved; the registry keeps one timer for the earliest room.
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

    let clock: RoomClock
    let wallClock: WallClock
    let origin: Double
    let metrics: ServerMetrics
    /// Holds `applied` messages until the next frame (AppliedBundlingChannel.swift).
    let channel: AppliedBundlingChannel
    let store: RoomStore
    var scene: ScrollScene
    var viewers: [Viewer] = []
    var claim: (viewer: String, gesture: GestureKind)?
    var pacer: FramePacer

    /// The latest time handed to the engine (room ms); inputs are never mapped before it.
    var lastInputTime: Double = 0
    var lastApplied: AppliedInput?
    var sequence: UInt64 = 0
    var lastFrame: EffectFrame
    var lastFrameInput: AppliedInput?
    var lastFrameSentAt: Double
    /// Room time of the last `presence` broadcast.
    var lastPresenceTime: Double = -.infinity
    /// Viewers joined or left since the last `presence`, which is not due yet.
    var presencePending = false
    /// Joins and leaves are announced at most this often, ms (driver changes at once).
    static let presenceInterval = 250.0
    /// Number of the last row move applied (announced or waiting for its commit).
    var rowMoveVersion: Int
    /// The row order and move number the store last confirmed: what viewers were told.
    var durableOrder: [[Int]]
    var durableRowMoveVersion: Int
    /// Grows each time the room takes back a move the store failed to keep; completions of moves
    /// applied before that are stale (they fail too: each move is stored only on top of the one
    /// before it).
    var moveGeneration = 0
    /// The content offset last given to `store.checkpoint`.
    var checkpointedOffset: Double
    /// Viewers speaking each protocol version: a version is encoded only while someone speaks it.
    var viewerCounts: [WireVersion: Int] = [:]
    /// Of them, the viewers of the frames stream: frames are encoded only in their versions.
    var frameViewerCounts: [WireVersion: Int] = [:]
    /// Viewers of the inputs stream, the room's numbered changes, the batch waiting
    /// (`Room+InputsStream.swift`).
    var inputsStream = InputsStreamState()
    /// What the room's version-2 viewers have been sent of its texts (every frame is registered
    /// in it before it is encoded while any are here). Kept after the last one leaves, for its
    /// resume; a version-2 viewer joining afresh alone starts it anew.
    var texts = WireTextTable()
    /// This run of the room, for resumes (`Room+Resume.swift`).
    let life: UInt64 = Room.newLife()
    /// Reliable messages kept for resumes.
    var history: RoomHistory
    /// Viewers that asked for `applied` messages (`Room+Applied.swift`), and of them those that
    /// asked for the complete-history mark too (`Room+Complete.swift`).
    var inputWatchers = 0
    var completeWatchers = 0
    /// Early inputs waiting for their time, earliest first (`Room+Held.swift`).
    var held: [HeldInput] = []
    /// The complete-history mark: every change at or before this room time has been handed to
    /// the channel, and every later change takes a later time (`Room+Complete.swift`).
    var complete = -Double.infinity
    /// Room time the mark last went out (a frame or a beat), for the beat's rate.
    var lastMarkAt = -Double.infinity
    /// An input was held or a frame skipped since the last frame: the room owes its complete
    /// watchers a beat once it rests, unless a frame says it first.
    var restBeatOwed = false
    /// What the room applied since its last frame, for a watcher joining before the next one.
    var appliedSinceFrame: [AppliedMessage] = []
    /// Requests to drive, grants, explorers (`Room+Sharing.swift`).
    var sharing = RoomSharing()

    /// The texts the room's version-2 viewers have been sent (for tests).
    var wireTexts: WireTextTable { texts }

    /// Set once another node runs the room: late store completions must not announce anything.
    var abandoned = false

    /// The registry the room lives in, which keeps the frame timer: told of every change to
    /// the room's deadline (`deadlineMayHaveMoved`).
    unowned let registry: RoomRegistry

    /// Room time (ms) since which the room has had no viewers, or nil while it has some.
    public private(set) var emptySince: Double?

    struct Viewer {
        let id: String
        let version: WireVersion
        /// Where its messages go (the channel has it too; kept to attach it again on another stream).
        let sink: ViewerSink
        let canDrive: Bool
        /// The room's key, for a viewer entitled to see it in its snapshot.
        let driverKey: String?
        var timeMapper = InputTimeMapper()
        var lastInputID: UInt64?
        /// Whether it asked to be told the room's life (to resume later).
        var resumable = false
        /// Whether it asked for `applied` messages.
        var watchesInputs = false
        /// Whether it asked for the complete-history mark with them.
        var wantsComplete = false
        /// Which stream it takes (docs/protocol.md, "The inputs stream").
        var stream = ViewerStream.frames
        /// The batch period it asked for in the inputs stream, ms (0: one frame period).
        var batchMs = 0
        /// Room times of its recent `keyframe` requests.
        var keyframes: [Double] = []
    }

    /// A room of `registry` showing `configuration`, its clock starting now, run under `lease`, its frames
    /// numbered on from `firstSequence` (0 for a new life on one node). With a
    /// `driverKeyDigest`, only viewers presenting the matching key may drive. `rowMoveVersion`
    /// is the number of moves a restored room had made, `restingOffset` the content offset it
    /// came to rest at (nil: the top).
    public convenience init(name: String, sceneName: String, configuration: SceneConfiguration, driverKeyDigest: String? = nil,
                            rowMoveVersion: Int = 0, restingOffset: Double? = nil, lease: RoomLease, firstSequence: UInt64 = 0,
                            framePeriod: Double = 1000.0 / 60, services: RoomServices, registry: RoomRegistry) {
        self.init(name: name, sceneName: sceneName, scene: ScrollScene(configuration: configuration).fresh(restingAt: restingOffset),
                  driverKeyDigest: driverKeyDigest, rowMoveVersion: rowMoveVersion, lease: lease, firstSequence: firstSequence,
                  framePeriod: framePeriod, services: services, registry: registry)
    }

    /// A room showing `scene` (fresh: at rest, no input applied yet), otherwise as above. Rooms of
    /// one catalogue scene are made from one template (`SceneCatalogue.scene(named:restingAt:)`),
    /// so they share its rows and layout instead of each holding (and walking) its own copy.
    public init(name: String, sceneName: String, scene: ScrollScene, driverKeyDigest: String? = nil,
                rowMoveVersion: Int = 0, lease: RoomLease, firstSequence: UInt64 = 0,
                framePeriod: Double = 1000.0 / 60, services: RoomServices, registry: RoomRegistry) {
        let configuration = scene.configuration
        self.registry = registry
        self.name = name
        self.sceneName = sceneName
        self.driverKeyDigest = driverKeyDigest
        self.lease = lease
        self.clock = services.clock
        self.wallClock = services.wallClock
        self.origin = services.clock.nowMilliseconds()
        self.metrics = services.metrics
        self.store = services.store
        self.channel = AppliedBundlingChannel(services.relay.openChannel(for: lease))
        // The common grid: the periods since the room clock's zero, on this room's time scale.
        self.pacer = FramePacer(framePeriod: framePeriod, gridPoint: -origin)
        self.sequence = firstSequence
        self.history = RoomHistory(firstSequence: firstSequence)
        self.rowMoveVersion = rowMoveVersion
        self.durableRowMoveVersion = rowMoveVersion
        self.durableOrder = configuration.rowOrder
        self.scene = scene
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
    /// The room's one deadline: whatever else it may wait for joins it here, and the registry
    /// reads nothing else. An input held for its time (`Room+Held.swift`) and a beat
    /// (`Room+Complete.swift`) want it too.
    public var nextTickDue: Double? {
        var due = pacer.nextDue(isAnimating: lastFrame.isAnimating) ?? .infinity
        if presencePending { due = min(due, lastPresenceTime + Self.presenceInterval) }
        if let owed = owedPresenceDue { due = min(due, owed) }
        if let first = held.first { due = min(due, first.due) }
        if let beat = beatDue { due = min(due, beat) }
        if let batch = batchDue { due = min(due, batch) }
        if let expiry = sharing.nextExpiry { due = min(due, expiry) }
        return due < .infinity ? due : nil
    }

    /// `nextTickDue` on the room clock's own scale (what the server's timer is set on).
    public var nextTickDeadline: Double? { nextTickDue.map { $0 + origin } }

    /// Tells the registry that `nextTickDeadline` may have moved. Called as the room finishes
    /// with each thing that reaches it (an input, a join, a leave, a tick, a store's answer),
    /// whoever passed it on, so the frame timer never depends on a caller remembering to say so.
    func deadlineMayHaveMoved() {
        // Changes the room just made go out at once when their period has come.
        sendBatchIfDue()
        registry.deadlineMayHaveMoved(of: self)
    }

    // MARK: Viewers

    /// Adds a viewer speaking `version`: it gets the snapshot (scene, row order, latest frame) at
    /// once, and the other viewers get `presence`. `canDrive` is false for viewers of a locked room
    /// without its key; `driverKey` is the room's key, for a viewer entitled to see it in its
    /// snapshot.
    /// A viewer of the inputs stream (`stream`) gets the engine's state and the room's changes
    /// instead of frames (docs/protocol.md, "The inputs stream"); `inputs` and `complete` are then
    /// implied.
    public func join(viewer id: String, sink: ViewerSink, version: WireVersion = .v1, canDrive: Bool = true,
                     driverKey: String? = nil, resumable: Bool = false, resume: ResumeRequest? = nil,
                     inputs: Bool = false, complete: Bool = false, stream: ViewerStream = .frames, batchMs: Int = 0) {
        defer { deadlineMayHaveMoved() }
        let takesInputs = stream == .inputs
        let inputs = inputs && !takesInputs
        let complete = inputs && complete
        let released = releaseHeld(dueBy: now + pacer.timerSlack)
        if complete { markLastFrameForFirstCompleteWatcher() }
        // The joiner's state will hold what waits for a batch: it goes to the others first.
        if takesInputs { sendBatch() } else { restartTextsIfAlone(joining: version, resuming: resume != nil) }
        viewers.append(Viewer(id: id, version: version, sink: sink, canDrive: canDrive, driverKey: canDrive ? driverKey : nil,
                              resumable: resumable || resume != nil, watchesInputs: inputs, wantsComplete: complete,
                              stream: stream, batchMs: takesInputs ? batchMs : 0))
        viewerCounts[version, default: 0] += 1
        if takesInputs { inputsStream.add(version, batchMs: batchMs) } else { frameViewerCounts[version, default: 0] += 1 }
        if inputs { inputWatchers += 1 }
        if complete { completeWatchers += 1 }
        resumeGrant(resume, for: id)
        channel.attach(id, sink: sink, version: version, watchesInputs: inputs, complete: complete, stream: stream,
                       batchMs: takesInputs ? batchMs : 0)
        emptySince = nil
        answerJoin(of: id, resuming: resume)
        tellJoinerOfSharing(id)
        if inputs { sendAppliedState(to: id, version: version, complete: complete) }
        if complete { sendJoinBeat(to: id, version: version) }
        if takesInputs { sendStreamJoinBeat(to: id, version: version) }
        announcePresence(urgent: false, joiner: id)
        if released { requestFrame() }
    }

    /// Adds the viewer of `join`, deciding whether it may drive: always in an open room; in a
    /// locked one when this join created it (`createdHere`) or presents the room's key.
    public func admit(_ join: ViewerJoin, createdHere: Bool) {
        if join.request.stream == .inputs, let refusal = inputsStreamRefusal(engine: join.request.engine) {
            return refuse(join, refusal)
        }
        let holdsKey = DriverKey.matches(digest: driverKeyDigest, candidate: join.request.driverKey)
        let canDrive = !isLocked || createdHere || holdsKey
        let key = !isLocked ? nil : createdHere ? join.newKey : holdsKey ? join.request.driverKey : nil
        self.join(viewer: join.viewer, sink: join.sink, version: join.version, canDrive: canDrive, driverKey: key,
                  resumable: join.request.wantsResumePoint, resume: join.request.resume, inputs: join.request.inputs,
                  complete: join.request.complete, stream: join.request.stream, batchMs: join.request.batchMs ?? 0)
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
            resumePoint: viewer.resumable ? resumePoint : nil, replica: viewer.stream == .inputs ? replicaStart() : nil)
        switch viewer.version {
        case .v1:
            channel.send(RoomMessage(v1: OutgoingMessage(utf8: ServerMessageEncoder.snapshot(snapshot))), to: .viewer(id))
        case .v2 where viewer.stream == .inputs:
            // Its own table: the room's is what its frames viewers were sent, and it gets no frames.
            var own = WireTextTable()
            let encoded = ServerMessageEncoderV2.snapshot(snapshot, texts: &own)
            channel.send(RoomMessage(v2: OutgoingMessage(binary: encoded.snapshot)), to: .viewer(id))
        case .v2:
            // The snapshot carries every text the room's v2 viewers have. Its frame can show texts
            // the table lacks only when no other v2 viewer was here (frames are registered only
            // while one is); any other v2 viewer gets them too, so all of them hold the table.
            let encoded = ServerMessageEncoderV2.snapshot(snapshot, texts: &texts)
            if let new = encoded.texts {
                recordSent(.texts(new))
                channel.send(RoomMessage(v2: OutgoingMessage(binary: new)), to: .framesStreamExcept(id))
            }
            channel.send(RoomMessage(v2: OutgoingMessage(binary: encoded.snapshot)), to: .viewer(id))
        }
    }

    /// Removes a viewer. A gesture it was driving ends as a cancel, so a lifted row goes back
    /// and someone else may drive at once; its inputs held for their time are dropped with it,
    /// never applied.
    public func leave(viewer id: String) {
        defer { deadlineMayHaveMoved() }
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        let released = releaseHeld(dueBy: now + pacer.timerSlack)
        held.removeAll { $0.viewer == id }
        let leaving = viewers.remove(at: index)
        viewerCounts[leaving.version, default: 1] -= 1
        if leaving.stream == .inputs {
            inputsStream.remove(leaving.version, batchMs: leaving.batchMs)
        } else {
            frameViewerCounts[leaving.version, default: 1] -= 1
        }
        if leaving.watchesInputs { inputWatchers -= 1 }
        if leaving.wantsComplete { completeWatchers -= 1 }
        channel.detach(id)
        let wasDriving = claim?.viewer == id
        if wasDriving {
            let time = changeTimeNow
            if cancelClaim(id: leaving.lastInputID ?? 0, at: time, cause: .leave) { lastInputTime = time }
            requestFrame()
        } else if released {
            requestFrame()
        }
        sharingLeft(id)
        if viewers.isEmpty { emptySince = now }
        announcePresence(urgent: wasDriving)
        beatIfOwed()
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
}
