import ScrollEngine
import ScrollWire

/// The inputs stream (docs/protocol.md, "The inputs stream"): viewers that run the room's engine
/// get its state once, then every change the room makes in `batch`es (at most one per frame
/// period), and a few `beat`s a second carrying the hash of the room's frame, instead of frames.
/// The room still computes every frame (it keeps its authority and hashes them for the beats);
/// it encodes frames only while a viewer of the frames stream is here.
extension Room {
    /// Whether the room keeps the complete-history mark: someone is told it (`Room+Complete.swift`).
    var keepsMark: Bool { completeWatchers > 0 || inputsStream.viewers > 0 }

    /// Numbers a change the room made (not a `state` message) and, while the stream has viewers,
    /// keeps it for their next batch.
    func recordChange(_ change: AppliedMessage) {
        guard change.cause != .state else { return }
        inputsStream.log.append(change)
        guard inputsStream.viewers > 0 else { return }
        for batchMs in inputsStream.periods { inputsStream.groups[batchMs]?.pending.append(change) }
        inputsStream.restBeatOwed = true
    }

    /// How often batches of the period asked as `batchMs` may leave: at most once a frame period.
    func batchPeriod(_ batchMs: Int) -> Double {
        max(Double(batchMs), pacer.framePeriod)
    }

    /// When the waiting changes of period `batchMs` go out: that period after its last batch (the
    /// first change after a quiet period at once). A period as long as the beats' interval counts
    /// from the oldest waiting change instead: a beat comes first while the room moves and takes
    /// them with it, so a gesture's first change costs its viewers no write of its own (one of
    /// the three a `fling` gesture cost beside the beats at 250 ms: docs/benchmarks.md).
    func batchDue(_ batchMs: Int) -> Double? {
        guard let group = inputsStream.groups[batchMs], !group.pending.isEmpty else { return nil }
        let period = batchPeriod(batchMs)
        // The oldest change's room time: the present when it was recorded, or up to a frame
        // before (a late input is placed no earlier than the last mark sent, docs/protocol.md).
        if period >= InputsStreamState.beatInterval, let oldest = group.pending.first?.time {
            return max(group.lastBatchAt, oldest) + period
        }
        return group.lastBatchAt + period
    }

    /// When the first waiting changes go out.
    var batchDue: Double? {
        // Asked at every tick and change of every room: no array made.
        var earliest: Double?
        for batchMs in inputsStream.groups.keys {
            if let due = batchDue(batchMs) { earliest = min(earliest ?? due, due) }
        }
        return earliest
    }

    /// Sends the waiting changes of each period that has come (`tick`, and as anything reaching
    /// the room finishes: the first change after a quiet period goes at once). When a beat is due
    /// too, it goes with them (`beatWithBatch`).
    func sendBatchIfDue() {
        let current = now
        let isDue = { (batchMs: Int) in self.batchDue(batchMs).map { current >= $0 - self.pacer.timerSlack } ?? false }
        guard inputsStream.groups.keys.contains(where: isDue), !beatWithBatch(at: current) else { return }
        for batchMs in inputsStream.periods where isDue(batchMs) { sendBatch(batchMs) }
    }

    /// Sends the waiting changes of every period now, with the mark: before a joiner's state
    /// (which holds them), before a beat (whose mark covers them).
    func sendBatch() {
        for batchMs in inputsStream.periods { sendBatch(batchMs) }
    }

    /// Sends the changes waiting for period `batchMs`, encoded once for all its viewers.
    func sendBatch(_ batchMs: Int) {
        guard let group = inputsStream.groups[batchMs], let last = group.pending.last else { return }
        let current = now
        let mark = markComplete(through: max(current, last.time))
        let batch = BatchMessage(changes: inputsStream.log.count, complete: BatchMessage.compactMark(mark, after: last.time),
                                 applied: group.pending)
        inputsStream.groups[batchMs]?.pending.removeAll(keepingCapacity: true)
        inputsStream.groups[batchMs]?.lastBatchAt = current
        channel.send(streamForms(group.counts, v1: { ServerMessageEncoder.batch(batch) }, v2: { ServerMessageEncoderV2.batch(batch) }),
                     to: .inputsBatches(batchMs))
    }

    /// After frame `frame` (just computed: sent and marked, or skipped as showing nothing new): a
    /// beat with its hash while the room moves (an animation, or a gesture held, still or not), at
    /// most one per `beatInterval`, and one when it rests. Its mark is the frame's time: the room
    /// applied every change up to it, and the batch before the beat sends them.
    func streamBeat(after frame: EffectFrame, at current: Double) {
        guard inputsStream.viewers > 0 else { return }
        if frame.isAnimating || claim != nil || !held.isEmpty {
            guard motionBeatDue(at: current) else { return }
            inputsStream.restBeatOwed = true
        } else {
            guard inputsStream.restBeatOwed else { return }
            inputsStream.restBeatOwed = false
        }
        sendBeat(after: frame, at: current)
    }

    /// A batch is due while the room moves and its motion beat is due too: the beat goes now with
    /// it (the batch before it sending what waits for every period), one write to each viewer,
    /// instead of the batch alone and the beat with the next frame. A frame timer a little late
    /// put the beat a frame after the batch's period, so a viewer on 250 ms batches got a write
    /// for each. Its frame is the room's at the present, computed for it. Not while an input is
    /// held (`streamBeat` beats then, its frame having released what is due). Returns whether it sent.
    private func beatWithBatch(at current: Double) -> Bool {
        guard held.isEmpty, motionBeatDue(at: current) else { return false }
        let frame = Self.frame(of: &scene, at: Self.frameTime(max(current, lastInputTime)))
        guard frame.isAnimating || claim != nil else { return false }
        inputsStream.restBeatOwed = true
        sendBeat(after: frame, at: current)
        return true
    }

    /// Whether a beat in motion may go out: `beatInterval` since the last.
    private func motionBeatDue(at current: Double) -> Bool {
        current >= inputsStream.lastBeatAt + InputsStreamState.beatInterval - pacer.timerSlack
    }

    /// The waiting changes of every period, who drives if that changed, then the beat of
    /// `frame`, just computed.
    private func sendBeat(after frame: EffectFrame, at current: Double) {
        sendBatch()
        sendOwedPresence()
        inputsStream.lastBeatAt = current
        let beat = BeatMessage(time: frame.time, complete: min(markComplete(through: frame.time), frame.time),
                               hash: FrameHash.of(frame, input: lastApplied))
        channel.send(streamForms(v1: { ServerMessageEncoder.beat(beat) }, v2: { ServerMessageEncoderV2.beat(beat) }),
                     to: .inputsStream)
    }

    /// The driver changed (a gesture claimed or released the room). Viewers of frames are told at
    /// once; viewers of the inputs stream with the next beat, after the batch holding the change
    /// that did it, a beat's interval later at the latest: their replicas draw the room a marks'
    /// gap behind anyway, and a write of its own to each of them, twice a gesture, was two of
    /// the three writes a `fling` gesture cost them beside the beats.
    func announceDriver() {
        guard inputsStream.viewers > 0 else { return announcePresence(urgent: true) }
        if viewers.count > inputsStream.viewers { sendPresence(to: .framesStream) }
        if inputsStream.presenceOwedSince == nil { inputsStream.presenceOwedSince = now }
    }

    /// When presence owed to the inputs stream goes out without a beat.
    var owedPresenceDue: Double? {
        inputsStream.presenceOwedSince.map { $0 + InputsStreamState.beatInterval }
    }

    /// Presence to the inputs stream, if owed.
    func sendOwedPresence() {
        guard inputsStream.presenceOwedSince != nil else { return }
        inputsStream.presenceOwedSince = nil
        sendPresence(to: .inputsStream)
    }

    /// After an inputs-stream snapshot (or `resumed` and its batch): the room's present, the
    /// mark and the hash of the room's frame then.
    func sendStreamJoinBeat(to id: String, version: WireVersion) {
        let mark = markComplete(through: max(now, lastInputTime))
        let time = max(now, lastInputTime, mark)
        let beat = BeatMessage(time: time, complete: mark, hash: FrameHash.of(scene.frame(at: time), input: lastApplied))
        let form = OutgoingMessage.encoded(for: version, v1: { ServerMessageEncoder.beat(beat) },
                                           v2: { ServerMessageEncoderV2.beat(beat) })
        channel.send(RoomMessage(form, for: version), to: .viewer(id))
    }

    /// What an inputs-stream snapshot's replica starts from: the engine's state as it stands,
    /// with every change the room made, at the mark raised to the present.
    func replicaStart() -> ReplicaStart {
        let mark = markComplete(through: max(now, lastInputTime))
        // The catalogue's scene, rows in their first order: what a replica builds by name (a
        // built-in one) or from `GET /scenes/NAME` (a file or uploaded one), so the state's row
        // order is the room's rearrangement of that.
        let base = registry.scenes.configuration(named: sceneName) ?? scene.configuration
        return ReplicaStart(engine: EngineVersion.current, time: mark, changes: inputsStream.log.count,
                            input: lastApplied, state: scene.stateBytes(base: base))
    }

    /// A message in each version a viewer of the inputs stream (or of those `counts`) speaks.
    func streamForms(_ counts: [WireVersion: Int]? = nil, v1: () -> [UInt8], v2: () -> [UInt8]) -> RoomMessage {
        let counts = counts ?? inputsStream.counts
        return RoomMessage(v1: counts[.v1, default: 0] > 0 ? OutgoingMessage(utf8: v1()) : nil,
                           v2: counts[.v2, default: 0] > 0 ? OutgoingMessage(binary: v2()) : nil)
    }

    // MARK: Refusals

    /// Why a join of the inputs stream naming engine version `engine` cannot be served here, or
    /// nil when it can: another (or no) engine version. Every scene of a room can be replicated:
    /// a replica builds a file or uploaded one from `GET /scenes/NAME` (4101 is no longer sent).
    func inputsStreamRefusal(engine: UInt32?) -> CloseReason? {
        Self.engineRefusal(engine)
    }

    /// Why a join of the inputs stream naming `engine` is refused wherever the room is, or nil.
    public static func engineRefusal(_ engine: UInt32?) -> CloseReason? {
        guard engine != EngineVersion.current else { return nil }
        let got = engine.map { String($0) } ?? "none"
        return CloseReason(.engineNotServed, "stream 'inputs' needs engine \(EngineVersion.current); got \(got)")
    }

    /// Turns `join` away: `error` saying why, then the close.
    func refuse(_ join: ViewerJoin, _ reason: CloseReason) {
        let error = OutgoingMessage.encoded(for: join.version, v1: { ServerMessageEncoder.error(message: reason.reason) },
                                            v2: { ServerMessageEncoderV2.error(message: reason.reason) })
        join.sink.sendReliable(error)
        join.sink.close(reason)
    }
}
