import Dispatch
import ScrollEngine
import ScrollWire
import WebSockets

/// One shared table and the viewers watching it. Everything here runs on one thread (the
/// WebSocket service thread, or a test's thread); the room never touches the network itself,
/// only the `ViewerSink`s it is given.
///
/// Frame policy (docs/design.md, "Frame clock"): while the engine animates, a frame every
/// `framePeriod`; after input, a frame at once unless one went out less than half a period ago,
/// in which case it goes out half a period after that one. So input never waits more than half
/// a period, frames are never closer than that, and a room exceeds its frame rate (up to twice
/// it) only while input arrives faster than the display rate. An idle room sends nothing. The
/// room says when it next wants `tick()` (`nextTickDue`); the server keeps one timer for the
/// earliest room.
public final class Room {
    /// The room's name (what viewers join by).
    public let name: String
    /// Whether only holders of `driverKey` may drive.
    public let driverKey: String?
    /// The scene preset the room was created with (told to viewers in the snapshot).
    public let preset: ScenePreset

    private let clock: RoomClock
    private let wallClock: WallClock
    /// One frame at the room's frame rate, ms.
    private let framePeriod: Double
    private let origin: Double
    private let metrics: ServerMetrics
    private var scene: ScrollScene
    private var viewers: [Viewer] = []
    private var claim: (viewer: String, gesture: GestureKind)?

    /// The latest time handed to the engine (room ms); inputs are never mapped before it.
    private var lastInputTime: Double = 0
    private var lastApplied: AppliedInput?
    private var sequence: UInt64 = 0
    private var lastFrame: EffectFrame
    private var lastFrameInput: AppliedInput?
    private var lastFrameSentAt: Double
    /// Room time of the last frame sent (or of creation, before the first).
    private var lastFrameTime: Double = -.infinity
    /// When the next animation frame is due (room ms); advanced by whole periods so the average
    /// rate stays at the frame rate even though timers fire a little late.
    private var animationDue: Double = 0
    /// An input changed the scene and its frame has not gone out yet.
    private var framePending = false
    /// Room time of the last `presence` broadcast.
    private var lastPresenceTime: Double = -.infinity
    /// Viewers joined or left since the last `presence`, which is not due yet.
    private var presencePending = false
    /// Joins and leaves are announced at most this often, ms (driver changes at once).
    static let presenceInterval = 250.0
    private var rowVersion = 0

    /// Room time (ms) since which the room has had no viewers, or nil while it has some.
    public private(set) var emptySince: Double?

    struct Viewer {
        let id: String
        let sink: ViewerSink
        let canDrive: Bool
        var timeMapper = InputTimeMapper()
        var lastInputID: UInt64?
    }

    /// A room showing `configuration`, its clock starting now. With a `driverKey`, only
    /// viewers who present it may drive.
    /// `preset` only names the scene for viewers; `configuration` is what the room shows.
    public init(name: String, configuration: SceneConfiguration, driverKey: String? = nil,
                preset: ScenePreset = .default, framePeriod: Double = 1000.0 / 60,
                clock: RoomClock, wallClock: @escaping WallClock, metrics: ServerMetrics) {
        self.name = name
        self.driverKey = driverKey
        self.preset = preset
        self.clock = clock
        self.wallClock = wallClock
        self.framePeriod = max(1, framePeriod)
        self.origin = clock.nowMilliseconds()
        self.metrics = metrics
        self.scene = ScrollScene(configuration: configuration)
        self.lastFrame = scene.frame(at: 0)
        self.lastFrameSentAt = wallClock()
        self.emptySince = 0
    }

    /// Milliseconds since the room was created.
    public var now: Double { clock.nowMilliseconds() - origin }
    /// Number of viewers.
    public var viewerCount: Int { viewers.count }
    /// The viewer holding a gesture claim, if any.
    public var driver: String? { claim?.viewer }
    /// Sequence number of the last frame produced (0 before the first).
    public var frameSequence: UInt64 { sequence }
    /// Moves dropped so far.
    public var rowMoveVersion: Int { rowVersion }
    /// Room time (ms) at which the room next wants `tick()`: when a waiting input frame may go
    /// out, or the next animation frame is due; nil while it has nothing to send.
    public var nextTickDue: Double? {
        let frameDue: Double? = framePending ? lastFrameTime + minimumGap : lastFrame.isAnimating ? animationDue : nil
        let presenceDue: Double? = presencePending ? lastPresenceTime + Self.presenceInterval : nil
        switch (frameDue, presenceDue) {
        case let (frame?, presence?): return min(frame, presence)
        case let (due?, nil), let (nil, due?): return due
        case (nil, nil): return nil
        }
    }

    /// `nextTickDue` on the room clock's own scale (what the server's timer is set on).
    public var nextTickDeadline: Double? { nextTickDue.map { $0 + origin } }

    /// Frames are never closer than this, ms: half a period.
    private var minimumGap: Double { framePeriod / 2 }
    /// One timer ticks every room whose time has come, and timers fire on a whole-ms grid; a
    /// tick this early still counts as on time, so a frame due at 16.67 ms is not put off by a
    /// whole extra timer round for 0.3 ms. At most an eighth of a period, so high `--fps` keeps
    /// its spacing.
    private var timerSlack: Double { min(1, framePeriod / 8) }

    // MARK: Viewers

    /// Adds a viewer: it gets the snapshot (scene, row order, latest frame) at once, and the
    /// other viewers get `presence`. `canDrive` is false for viewers of a locked room without its key.
    public func join(viewer id: String, sink: ViewerSink, canDrive: Bool = true) {
        viewers.append(Viewer(id: id, sink: sink, canDrive: canDrive))
        emptySince = nil
        let snapshot = Snapshot(
            room: name, viewer: id, viewers: viewers.count, driver: claim?.viewer,
            configuration: scene.configuration, sections: scene.sections, frame: lastFrame,
            frameInput: lastFrameInput, frameSentAt: lastFrameSentAt,
            driverKey: canDrive ? driverKey : nil, sceneName: preset.rawValue, locked: driverKey != nil)
        send(reliable: ServerMessageEncoder.snapshot(snapshot), to: sink)
        announcePresence(urgent: false, joiner: id)
    }

    /// Removes a viewer. A gesture it was driving ends as a cancel, so a lifted row goes back
    /// and someone else may drive at once.
    public func leave(viewer id: String) {
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        let leaving = viewers.remove(at: index)
        let wasDriving = claim?.viewer == id
        if let claim, claim.viewer == id {
            let time = max(now, lastInputTime)
            let cancel = InputEvent(id: leaving.lastInputID ?? 0, time: time, kind: claim.gesture.cancellation)
            // The cancel cannot be refused for a valid gesture; if the engine disagrees the
            // claim still goes, so the room never stays locked by a departed viewer.
            if (try? scene.apply(cancel)) != nil { lastInputTime = time }
            self.claim = nil
            requestFrame()
        }
        if viewers.isEmpty { emptySince = now }
        announcePresence(urgent: wasDriving)
    }

    // MARK: Input

    /// Applies one input from a viewer, or answers it with `refused`.
    public func handle(_ input: InputMessage, from id: String) {
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        let sink = viewers[index].sink
        guard viewers[index].canDrive else {
            return refuse(input.id, .locked, "room '\(name)' is locked; join with its driver key to drive", to: sink)
        }
        if let claim, claim.viewer != id {
            return refuse(input.id, .driving, "\(claim.viewer) is driving; try again when the gesture ends", to: sink)
        }
        let startsGesture = input.kind.startsGesture
        if startsGesture != nil, claim != nil {
            return refuse(input.id, .gestureInProgress, "a gesture is already in progress; end it first", to: sink)
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
                return refuse(input.id, .outOfOrder, "t went backwards: \(got) after \(previous)", to: sink)
            }
        }
        let changes: [SceneChange]
        do {
            changes = try scene.apply(InputEvent(id: input.id, time: time, kind: input.kind))
        } catch {
            return refuse(input.id, .invalidInput, error.reason, to: sink)
        }
        metrics.inputs.increment()
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
        for change in changes { broadcast(change, by: id) }
        requestFrame()
    }

    /// Answers an input with `refused` (also used by the connection layer for rate limits).
    public func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to sink: ViewerSink) {
        metrics.refusedInputs.increment()
        send(reliable: ServerMessageEncoder.refused(input: inputID, code: code, reason: reason), to: sink)
    }

    // MARK: Frames

    /// Sends the frame that is due, if any: a waiting input frame once half a period has passed
    /// since the last frame, or the next animation frame. Calling it early does nothing.
    public func tick() {
        let current = now
        if presencePending, current >= lastPresenceTime + Self.presenceInterval - timerSlack {
            broadcastPresence(except: nil, at: current)
        }
        let ready = current >= lastFrameTime + minimumGap - timerSlack
        if framePending {
            if ready { emitFrame(at: current, forInput: true) }
        } else if lastFrame.isAnimating, ready, current >= animationDue - timerSlack {
            emitFrame(at: current, forInput: false)
        }
    }

    private func requestFrame() {
        let current = now
        if current >= lastFrameTime + minimumGap {
            emitFrame(at: current, forInput: true)
        } else {
            framePending = true
        }
    }

    private func emitFrame(at current: Double, forInput: Bool) {
        // An animation frame keeps the period's grid (so late timers do not lower the average
        // rate) unless the room fell a whole period behind; a frame for input restarts the grid
        // from itself, so the next animation frame is a full period after it.
        let keepsGrid = !forInput && current < animationDue + framePeriod
        animationDue = keepsGrid ? animationDue + framePeriod : current + framePeriod
        lastFrameTime = current
        framePending = false
        sequence += 1
        var frame = scene.frame(at: max(now, lastInputTime))
        frame.sequence = sequence
        let sentAt = wallClock()
        let started = DispatchTime.now().uptimeNanoseconds
        let message = OutboundMessage(utf8: ServerMessageEncoder.frame(frame, input: lastApplied, sentAt: sentAt))
        metrics.frameEncodeTime.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
        lastFrame = frame
        lastFrameInput = lastApplied
        lastFrameSentAt = sentAt
        // Counters once per frame, not once per viewer: at a thousand viewers the per-viewer
        // increments were a visible share of the fan-out loop.
        var skipped = 0
        for viewer in viewers where viewer.sink.sendLatest(message) { skipped += 1 }
        if skipped > 0 { metrics.framesSkipped.increment(by: skipped) }
        if !viewers.isEmpty {
            metrics.framesSent.increment(by: viewers.count)
            metrics.bytesOut.increment(by: message.count * viewers.count)
        }
    }

    // MARK: Reliable fan-out

    private func broadcast(_ change: SceneChange, by id: String) {
        switch change {
        case .rowMoved(let rowID, let from, let to):
            rowVersion += 1
            let message = OutboundMessage(utf8: ServerMessageEncoder.rowMoved(
                rowID: rowID, from: from, to: to, by: id, version: rowVersion))
            for viewer in viewers { send(reliable: message, to: viewer.sink) }
        }
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
        }
    }

    private func broadcastPresence(except excluded: String?, at time: Double) {
        presencePending = false
        guard viewers.contains(where: { $0.id != excluded }) else { return }
        lastPresenceTime = time
        let message = OutboundMessage(utf8: ServerMessageEncoder.presence(viewers: viewers.count, driver: claim?.viewer, locked: driverKey != nil))
        for viewer in viewers where viewer.id != excluded { send(reliable: message, to: viewer.sink) }
    }

    private func send(reliable bytes: [UInt8], to sink: ViewerSink) {
        send(reliable: OutboundMessage(utf8: bytes), to: sink)
    }

    private func send(reliable message: OutboundMessage, to sink: ViewerSink) {
        sink.sendReliable(message)
        metrics.bytesOut.increment(by: message.count)
    }
}
