import Dispatch
import ScrollEngine
import ScrollWire

// When frames go out (FramePacer's rules) and how each is made, numbered, logged and sent.
extension Room {
    // MARK: Frames

    /// Sends what is due: a deferred presence, held inputs whose time has come, a waiting input
    /// frame once half a period has passed since the last frame, or the next animation frame,
    /// and a beat while inputs are held. Calling it early does nothing.
    public func tick() {
        defer { deadlineMayHaveMoved() }
        let current = now
        expireRequests(at: current + pacer.timerSlack)
        if presencePending, current >= lastPresenceTime + Self.presenceInterval - pacer.timerSlack {
            broadcastPresence(except: nil, at: current)
        }
        if releaseHeld(dueBy: current + pacer.timerSlack) { requestFrame() }
        if let reason = pacer.frameDue(at: current, isAnimating: lastFrame.isAnimating) {
            emitFrame(at: current, for: reason)
        }
        beatIfOwed()
        sendBatchIfDue()
        if let owed = owedPresenceDue, current >= owed - pacer.timerSlack { sendOwedPresence() }
    }

    func requestFrame() {
        let current = now
        if pacer.inputArrived(at: current) { emitFrame(at: current, for: .input) }
    }

    func emitFrame(at current: Double, for reason: FramePacer.Reason) {
        let frameTime = Self.frameTime(max(now, lastInputTime))
        // A frame's `t` is the complete-history mark: inputs held for that time or earlier
        // (rounding puts it up to 0.01 ms ahead of now) go in first.
        releaseHeld(dueBy: frameTime)
        var rendered = Self.frame(of: &scene, at: frameTime)
        // Time alone changed nothing a viewer would see (e.g. the hold before a row lifts): no frame.
        if reason == .animation, lastApplied == lastFrameInput, Self.showsTheSame(rendered, as: &lastFrame) {
            channel.flush()
            pacer.frameSkipped(at: current)
            streamBeat(after: rendered, at: current)   // a gesture held still: the inputs stream's marks go on
            return frameSkippedBeat(at: current)
        }
        pacer.frameSent(at: current, for: reason)
        appliedSinceFrame.removeAll(keepingCapacity: true)
        sequence += 1
        rendered.sequence = sequence
        // A constant from here: the encoders and the `ahead` closure share it without a copy.
        let frame = rendered
        store.append(.frame(sequence: sequence, time: frameTime), toRoom: name)
        let sentAt = wallClock()
        let started = DispatchTime.now().uptimeNanoseconds
        // Once per version someone speaks. Version 2's first: the texts its frame shows for the
        // first time go out reliably, which every viewer's connection writes before the frame
        // (with it, as its leading messages).
        var message = RoomMessage()
        var leading: [LeadingMessage] = []
        if encodesFrames(.v2) {
            let encoded = ServerMessageEncoderV2.frame(frame, input: lastApplied, sentAt: sentAt, texts: &texts,
                                                       ahead: { WireTextTable.upcoming(around: frame, in: self.scene.sections) })
            if let new = encoded.texts {
                recordSent(.texts(new))
                leading.append(LeadingMessage(RoomMessage(v2: OutgoingMessage(binary: new)), to: .framesStream))
            }
            message.v2 = OutgoingMessage(binary: encoded.frame)
        }
        if encodesFrames(.v1) {
            message.v1 = OutgoingMessage(utf8: ServerMessageEncoder.frame(frame, input: lastApplied, sentAt: sentAt))
        }
        // Only frames encoded count: a room whose viewers all take inputs encodes none.
        if message.v1 != nil || message.v2 != nil {
            metrics.frameEncodeTime.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
        }
        lastFrame = frame
        lastFrameInput = lastApplied
        lastFrameSentAt = sentAt
        relayRest(of: frame)
        channel.sendFrame(message, sequence: sequence, after: leading)
        frameMarked(at: frameTime, sentAt: current)
        streamBeat(after: frame, at: current)
        if !frame.isAnimating, claim == nil { checkpoint(offset: frame.contentOffset) }
    }

    // `inout` only to borrow: a struct stored in a class is copied out (every array and text in
    // it retained, then released) before a method is called on it; through `inout` it is not.

    /// `scene.frame(at:)` without a copy of the scene.
    static func frame(of scene: inout ScrollScene, at time: Double) -> EffectFrame {
        scene.frame(at: time)
    }

    /// `frame.showsTheSame(as: last)` without a copy of `last`.
    static func showsTheSame(_ frame: EffectFrame, as last: inout EffectFrame) -> Bool {
        frame.showsTheSame(as: last)
    }

    /// Tells the store where the room rests, unless it already knows.
    func checkpoint(offset: Double) {
        guard offset != checkpointedOffset, offset.isFinite else { return }
        checkpointedOffset = offset
        store.checkpoint(RoomCheckpoint(room: name, restingOffset: offset))
    }
}
