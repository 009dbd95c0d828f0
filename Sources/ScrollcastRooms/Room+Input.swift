import Dispatch
import ScrollEngine
import ScrollWire

// A viewer's input: claims, time mapping, what the engine refuses, and refusals sent back.
extension Room {
    // MARK: Input

    /// Applies one input from a viewer, holds it until its time (an early `at`), or answers it
    /// with `refused`. A lock and an out-of-order `t` are refused at once; everything else is
    /// judged when the input is applied, in room-time order with everyone's inputs.
    public func handle(_ input: InputMessage, from id: String) {
        defer { deadlineMayHaveMoved() }
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        guard mayDrive(viewers[index]) else {
            return refuse(input.id, .locked, "room '\(name)' is locked; join with its driver key to drive", to: id)
        }
        if sharing.explores(id) {
            return refuse(input.id, .exploring, "you are exploring: your input drives your own table; follow the room to drive it", to: id)
        }
        let current = now
        // What is due goes first, so inputs reach the engine in room-time order.
        var changed = releaseHeld(dueBy: current + pacer.timerSlack)
        defer {
            if changed { requestFrame() }
            beatIfOwed()
        }
        let time: Double
        do {
            let floor = changeFloor(for: id)
            // On the 1/256 ms grid (RoomTime), held or applied at once: a batch writes it short.
            time = RoomTime.stamp(try viewers[index].timeMapper.map(
                clientTime: input.clientTime, at: input.at, now: current, floor: floor,
                startsGesture: input.kind.startsGesture != nil), floor: floor)
        } catch {
            switch error {
            case .wentBackwards(let previous, let got):
                return refuse(input.id, .outOfOrder, "t went backwards: \(got) after \(previous)", to: id)
            }
        }
        if time > current + pacer.timerSlack {
            hold(input, from: id, until: time)
            return tellHeld(input.id, heardAt: current, until: time, to: id)
        }
        if apply(input, from: id, at: time) { changed = true }
    }

    /// Applies `input` of viewer `id` at room time `time` (claims, the engine, the log, `applied`
    /// messages), or refuses it. True when the scene changed (a frame is wanted); the caller
    /// requests it.
    func apply(_ input: InputMessage, from id: String, at time: Double) -> Bool {
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return false }
        if let claim, claim.viewer != id {
            refuse(input.id, .driving, "\(claim.viewer) is driving; try again when the gesture ends", to: id)
            return false
        }
        let startsGesture = input.kind.startsGesture
        if startsGesture != nil, claim != nil {
            refuse(input.id, .gestureInProgress, "a gesture is already in progress; end it first", to: id)
            return false
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
            refuse(input.id, .invalidInput, error.reason, to: id)
            return false
        }
        metrics.inputs.increment()
        store.append(.input(viewer: id, event: event), toRoom: name)
        lastInputTime = time
        relayApplied(event, viewer: id, cause: .input)
        lastApplied = AppliedInput(viewer: id, id: input.id)
        viewers[index].lastInputID = input.id
        if let gesture = startsGesture {
            claim = (id, gesture)
            announceDriver()
        } else if let gesture = input.kind.endsGesture, claim?.viewer == id, claim?.gesture == gesture {
            claim = nil
            announceDriver()
        }
        for change in changes { commit(change, by: id) }
        return true
    }

    static let unavailableReason = "row moves are paused: the server cannot save them right now; scrolling still works"

    /// Refuses `input` of viewer `index` with `unavailable`. A gesture of that viewer in
    /// progress (a drop was refused) ends as a cancel in its place, so a lifted row goes back
    /// where it was and the room is free to drive. True when the scene changed.
    func refuseUnavailable(_ input: InputMessage, at time: Double, from index: Int) -> Bool {
        let id = viewers[index].id
        refuse(input.id, .unavailable, Self.unavailableReason, to: id)
        metrics.unavailableRefusals.increment()
        guard claim?.viewer == id else { return false }
        cancelClaim(id: input.id, at: time, cause: .unavailable)
        lastInputTime = time
        viewers[index].lastInputID = input.id
        announceDriver()
        return true
    }

    /// Ends the gesture claim with a cancel (input id `inputID`) at `time`, which the room logs
    /// and tells the watchers of as done for `cause`. The claim goes even if the engine refuses
    /// the cancel (it cannot for a valid gesture), so the room never stays locked. Whether the
    /// cancel was applied.
    @discardableResult
    func cancelClaim(id inputID: UInt64, at time: Double, cause: RoomLogEntry.CancelCause) -> Bool {
        guard let claim else { return false }
        self.claim = nil
        let cancel = InputEvent(id: inputID, time: time, kind: claim.gesture.cancellation)
        guard (try? scene.apply(cancel)) != nil else { return false }
        store.append(.cancel(viewer: claim.viewer, event: cancel, cause: cause), toRoom: name)
        relayApplied(cancel, viewer: claim.viewer, cause: cause.applied)
        return true
    }

    /// Answers an input of viewer `viewer` with `refused`.
    public func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to viewer: String) {
        metrics.refusedInputs.increment()
        guard let version = viewers.first(where: { $0.id == viewer })?.version else { return }
        channel.send(RoomMessage(.refused(input: inputID, code: code, reason: reason, version: version), for: version),
                     to: .viewer(viewer))
    }

    /// Whether any viewer speaks `version`.
    func speaks(_ version: WireVersion) -> Bool {
        viewerCounts[version, default: 0] > 0
    }

    /// Whether any viewer of the frames stream speaks `version`: frames are encoded only then.
    func encodesFrames(_ version: WireVersion) -> Bool {
        frameViewerCounts[version, default: 0] > 0
    }

    /// A message for every viewer, encoded in each version someone speaks.
    func forEveryVersion(v1: () -> [UInt8], v2: () -> [UInt8]) -> RoomMessage {
        RoomMessage(v1: speaks(.v1) ? OutgoingMessage(utf8: v1()) : nil,
                    v2: speaks(.v2) ? OutgoingMessage(binary: v2()) : nil)
    }
}
