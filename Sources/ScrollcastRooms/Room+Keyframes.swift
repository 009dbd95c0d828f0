import ScrollEngine
import ScrollWire

/// The inputs stream's ways back to a right picture (docs/protocol.md, "The inputs stream"): a
/// keyframe when a viewer's hash disagreed, frames for a viewer whose hash keeps disagreeing, and
/// a resume that sends the changes missed instead of frames.
extension Room {
    /// What a `keyframe` request did.
    public enum KeyframeAnswer: Sendable, Equatable {
        /// A fresh snapshot with the engine's state, then a beat.
        case keyframe
        /// The viewer asked too often: it now takes frames (a snapshot without `replica`).
        case movedToFrames
        /// The viewer does not take the inputs stream (or is gone): a protocol error.
        case notInStream
    }

    /// Viewer `id` asks for a keyframe: a fresh snapshot of the engine's state (counted), unless
    /// this is its `keyframesBeforeFallback`-th request within `keyframeWindow`, which moves it to
    /// the frames stream instead (counted apart).
    @discardableResult
    public func keyframe(for id: String) -> KeyframeAnswer {
        defer { deadlineMayHaveMoved() }
        guard let index = viewers.firstIndex(where: { $0.id == id }), viewers[index].stream == .inputs else { return .notInStream }
        let current = now
        viewers[index].keyframes.removeAll { $0 <= current - InputsStreamState.keyframeWindow }
        viewers[index].keyframes.append(current)
        // The keyframe's state holds what waits for a batch: the others get it first (so does
        // this viewer, which drops what it held anyway).
        sendBatch()
        guard viewers[index].keyframes.count < InputsStreamState.keyframesBeforeFallback else {
            metrics.inputsStreamFallbacks.increment()
            moveToFrames(index)
            return .movedToFrames
        }
        metrics.keyframes.increment()
        sendSnapshot(to: id)
        sendStreamJoinBeat(to: id, version: viewers[index].version)
        return .keyframe
    }

    /// `keyframe(for:)` as a `RoomEndpoint` asks it.
    public func requestKeyframe(for id: String) -> Bool {
        keyframe(for: id) != .notInStream
    }

    /// Viewer `index` leaves the inputs stream for frames, as if it had joined with `inputs` and
    /// `complete` and no `stream`: a snapshot without `replica`, the `applied` state, a beat.
    private func moveToFrames(_ index: Int) {
        let viewer = viewers[index]
        restartTextsIfAlone(joining: viewer.version, resuming: false)
        viewers[index].stream = .frames
        viewers[index].watchesInputs = true
        viewers[index].wantsComplete = true
        inputsStream.remove(viewer.version, batchMs: viewer.batchMs)
        frameViewerCounts[viewer.version, default: 0] += 1
        inputWatchers += 1
        completeWatchers += 1
        channel.detach(viewer.id)
        channel.attach(viewer.id, sink: viewer.sink, version: viewer.version, watchesInputs: true, complete: true, stream: .frames, batchMs: 0)
        sendSnapshot(to: viewer.id)
        sendAppliedState(to: viewer.id, version: viewer.version, complete: true)
        sendJoinBeat(to: viewer.id, version: viewer.version)
    }

    /// Answers an inputs-stream join with `resume` (its `seq` counts changes): `resumed`, the row
    /// moves missed, one batch with the changes missed and a beat; or, when the room cannot vouch
    /// for what the viewer holds, the snapshot.
    func answerInputsResume(of viewer: Viewer, _ request: ResumeRequest) {
        let missedMoves = history.moves(after: request.rowMoveVersion, upTo: durableRowMoveVersion)
        guard request.life == life, let missed = inputsStream.log.since(request.seq), let missedMoves else {
            metrics.resumesRefused.increment()
            return sendSnapshot(to: viewer.id)
        }
        metrics.resumes.increment()
        let resumed = ResumedMessage(room: name, viewer: viewer.id, viewers: viewers.count, driver: claim?.viewer,
                                     locked: isLocked, life: life, rowMoveVersion: durableRowMoveVersion, from: request.seq,
                                     seq: inputsStream.log.count, driverKey: viewer.driverKey)
        var messages: [ServerMessage] = [.resumed(resumed)]
        messages += missedMoves.map { .rowMoved($0) }
        if !missed.isEmpty {
            let mark = markComplete(through: max(now, lastInputTime))
            messages.append(.batch(BatchMessage(changes: inputsStream.log.count, complete: mark, applied: missed)))
        }
        for message in messages {
            let form = viewer.version == .v1
                ? OutgoingMessage(utf8: ServerMessageEncoder.encode(message))
                : OutgoingMessage(binary: ServerMessageEncoderV2.encode(.message(message), texts: WireTextTable()))
            channel.send(RoomMessage(form, for: viewer.version), to: .viewer(viewer.id))
        }
    }
}
