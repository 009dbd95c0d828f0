import ScrollEngine
import ScrollWire

/// Resuming (docs/protocol.md, "Resuming"): a viewer whose connection dropped joins again naming
/// the room's life, its last frame `seq` and its last row move; when the room's history still
/// holds everything it missed, it gets `resumed`, those row moves, (version 2) those texts and
/// the latest frame, instead of a snapshot.
extension Room {
    /// A number for one run of this room, in 1…2^53 − 1: random, so a room made again (after a
    /// restart, an eviction, or on a new owner in a cluster) cannot be mistaken for this one.
    static func newLife() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return UInt64.random(in: ScrollWire.idRange, using: &generator)
    }

    /// What the room's viewers know of it for a later resume.
    var resumePoint: ResumePoint { ResumePoint(life: life, rowMoveVersion: durableRowMoveVersion) }

    /// Answers the join of viewer `id` (just added): `resumed` and what it missed when the
    /// history allows, else the snapshot.
    func answerJoin(of id: String, resuming request: ResumeRequest?) {
        guard let request, let viewer = viewers.first(where: { $0.id == id }) else { return sendSnapshot(to: id) }
        if viewer.stream == .inputs { return answerInputsResume(of: viewer, request) }
        let decision = history.decide(request, life: life, sequence: sequence, rowMoveVersion: durableRowMoveVersion,
                                        version: viewer.version)
        guard case .replay(let moves, let missedTexts) = decision else {
            metrics.resumesRefused.increment()
            return sendSnapshot(to: id)
        }
        metrics.resumes.increment()
        let resumed = ResumedMessage(room: name, viewer: id, viewers: viewers.count, driver: claim?.viewer,
                                     locked: isLocked, life: life, rowMoveVersion: durableRowMoveVersion, from: request.seq,
                                     seq: sequence, driverKey: viewer.driverKey)
        let missedFrames = request.seq < sequence
        switch viewer.version {
        case .v1:
            send(v1: ServerMessageEncoder.resumed(resumed), to: id)
            for move in moves {
                send(v1: ServerMessageEncoder.rowMoved(rowID: move.rowID, from: move.from, to: move.to, by: move.by,
                                                       rowMoveVersion: move.rowMoveVersion), to: id)
            }
            if missedFrames {
                send(v1: ServerMessageEncoder.frame(lastFrame, input: lastFrameInput, sentAt: lastFrameSentAt), to: id)
            }
        case .v2:
            send(v2: ServerMessageEncoderV2.resumed(resumed), to: id)
            for move in moves {
                send(v2: ServerMessageEncoderV2.rowMoved(rowID: move.rowID, from: move.from, to: move.to, by: move.by,
                                                         rowMoveVersion: move.rowMoveVersion), to: id)
            }
            for texts in missedTexts { send(v2: texts, to: id) }
            guard missedFrames else { return }
            // The latest frame, as every viewer got it; if the room's table lacks some of its
            // texts (no version-2 viewer was here when it was made), they go to every version-2
            // viewer first, as with any frame.
            let encoded = ServerMessageEncoderV2.frame(lastFrame, input: lastFrameInput, sentAt: lastFrameSentAt,
                                                       texts: &texts)
            if let new = encoded.texts {
                recordSent(.texts(new))
                channel.send(RoomMessage(v2: OutgoingMessage(binary: new)), to: .framesStream)
            }
            send(v2: encoded.frame, to: id)
        }
    }

    /// Keeps a reliable message every viewer was sent, for later resumes.
    func recordSent(_ entry: RoomHistory.Entry) {
        history.record(entry, afterFrame: sequence)
    }

    /// A version-2 viewer joins without resuming while no other is here: the room's text table
    /// (kept since the last one left, for its resume) starts afresh, as a new joiner's snapshot
    /// carries the whole table.
    func restartTextsIfAlone(joining version: WireVersion, resuming: Bool) {
        guard version == .v2, !resuming, frameViewerCounts[.v2, default: 0] == 0, !texts.all.isEmpty else { return }
        texts = WireTextTable()
        recordSent(.textsReset)
    }

    private func send(v1 bytes: [UInt8], to id: String) {
        channel.send(RoomMessage(v1: OutgoingMessage(utf8: bytes)), to: .viewer(id))
    }

    private func send(v2 bytes: [UInt8], to id: String) {
        channel.send(RoomMessage(v2: OutgoingMessage(binary: bytes)), to: .viewer(id))
    }
}
