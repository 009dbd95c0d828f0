import ScrollEngine
import ScrollWire

/// The complete-history mark (docs/protocol.md, "The complete history"), for viewers whose join
/// asked (`inputs` and `complete`): how far the room's history is complete for them, so a
/// watcher can draw only what it knows. Every change the room makes at or before the mark has
/// been handed to the channel before the message carrying it, and every later change takes a
/// later time (`changeFloor`). Frames carry it implicitly (their `t`), `applied` messages in
/// `complete`, and a `beat` while inputs are held or frames skipped, at a join, and once at
/// rest. While nobody asked, the mark stays where it was: frames then bind nothing and inputs
/// are timed exactly as before.
extension Room {
    /// Raises the mark to `time`, kept below every held input (they land later), and returns it.
    @discardableResult
    func markComplete(through time: Double) -> Double {
        let cap = held.first.map { $0.due.nextDown } ?? .infinity
        complete = max(complete, min(time, cap))
        return complete
    }

    /// When the next beat is due while an input is held: a frame period after the last mark.
    var beatDue: Double? {
        guard completeWatchers > 0, !held.isEmpty else { return nil }
        return lastMarkAt + pacer.framePeriod
    }

    /// A frame at room time `time` went out: its `t` is the mark.
    func frameMarked(at time: Double, sentAt current: Double) {
        lastMarkAt = current
        if held.isEmpty { restBeatOwed = false }
        guard keepsMark else { return }
        markComplete(through: time)
    }

    /// The animation frame due now showed nothing new and was not sent: the beat says instead
    /// that time went on.
    func frameSkippedBeat(at current: Double) {
        guard completeWatchers > 0 else { return }
        restBeatOwed = true
        sendBeat(at: current, to: .completeWatchers)
    }

    /// Sends the beat due (inputs held), or the one owed once the room rests (nothing held,
    /// nothing animating, no frame waiting), unless a frame says it.
    func beatIfOwed() {
        guard completeWatchers > 0 else { return }
        let current = now
        if let due = beatDue, current >= due - pacer.timerSlack {
            sendBeat(at: current, to: .completeWatchers)
        } else if restBeatOwed, held.isEmpty, !lastFrame.isAnimating, pacer.nextDue(isAnimating: false) == nil {
            restBeatOwed = false
            sendBeat(at: current, to: .completeWatchers)
        }
    }

    /// A complete watcher joins a room where none was: the last frame's `t`, a mark for it in its
    /// snapshot (or `resumed`), bound nobody until now, so a change since may lie at or before
    /// it. Then a frame goes out first (as an input's would), showing those changes, and the
    /// joiner starts from it.
    func markLastFrameForFirstCompleteWatcher() {
        guard !keepsMark else { return }
        if appliedSinceFrame.contains(where: { $0.cause != .state && $0.time <= lastFrame.time }) {
            emitFrame(at: now, for: .input)
        }
        markComplete(through: lastFrame.time)
    }

    /// After a complete watcher's snapshot (or `resumed`) and its `applied` follow-up: the
    /// room's present and the mark, so its clock starts at the present even in a room at rest.
    func sendJoinBeat(to id: String, version: WireVersion) {
        let mark = markComplete(through: max(now, lastFrame.time))
        let beat = BeatMessage(time: max(now, mark), complete: mark)
        channel.send(beatForms(beat, speaking: version), to: .viewer(id))
    }

    private func sendBeat(at current: Double, to audience: Audience) {
        lastMarkAt = current
        let mark = markComplete(through: current)
        // The mark can be a little ahead of the clock (a frame's time rounded up, an input
        // released up to the timer's slack early): `t` is never before it.
        let beat = BeatMessage(time: max(current, mark), complete: mark)
        channel.send(beatForms(beat, speaking: nil), to: audience)
    }

    /// The beat in each version a complete watcher speaks (or only in `version`).
    private func beatForms(_ beat: BeatMessage, speaking version: WireVersion?) -> RoomMessage {
        let v1 = version.map { $0 == .v1 } ?? viewers.contains { $0.wantsComplete && $0.version == .v1 }
        let v2 = version.map { $0 == .v2 } ?? viewers.contains { $0.wantsComplete && $0.version == .v2 }
        return RoomMessage(v1: v1 ? OutgoingMessage(utf8: ServerMessageEncoder.beat(beat)) : nil,
                           v2: v2 ? OutgoingMessage(binary: ServerMessageEncoderV2.beat(beat)) : nil)
    }
}
