import Dispatch
import ScrollEngine
import ScrollWire

// Reliable messages to every viewer: row moves once the store has them, taken-back moves, presence.
extension Room {
    // MARK: Reliable fan-out

    /// A row move is announced only once the store has it, so no viewer sees a move that a
    /// crash undoes.
    func commit(_ change: SceneChange, by id: String) {
        switch change {
        case .rowMoved(let rowID, let from, let to):
            rowMoveVersion += 1
            let rowMoveVersion = self.rowMoveVersion
            let generation = moveGeneration
            let record = RowMoveRecord(room: name, rowID: rowID, from: from, to: to, viewer: id, rowMoveVersion: rowMoveVersion,
                                       rowOrder: scene.configuration.rowOrder)
            store.commitRowMove(record) { [weak self, metrics] result in
                switch result {
                case .success:
                    // A room gone meanwhile has closed its channel: nobody is left to tell.
                    guard let self, !self.abandoned else { return }
                    self.durableOrder = record.rowOrder
                    self.durableRowMoveVersion = rowMoveVersion
                    self.recordSent(.rowMoved(RoomHistory.RowMove(rowID: rowID, from: from, to: to, by: id,
                                                                  rowMoveVersion: rowMoveVersion)))
                    self.channel.send(self.forEveryVersion(
                        v1: { ServerMessageEncoder.rowMoved(rowID: rowID, from: from, to: to, by: id, rowMoveVersion: rowMoveVersion) },
                        v2: { ServerMessageEncoderV2.rowMoved(rowID: rowID, from: from, to: to, by: id, rowMoveVersion: rowMoveVersion) }),
                        to: .everyone)
                case .failure:
                    metrics.storeFailures.increment()
                    if let self, !self.abandoned, generation == self.moveGeneration {
                        self.takeBackUnstoredMoves()
                        // The cancel and the order taken back may want frames of their own.
                        self.deadlineMayHaveMoved()
                    }
                }
            }
        }
    }

    /// A move failed to commit after the room applied it (the store failed between the check
    /// and the write): the room goes back to the order the store has, which is the order its
    /// viewers were told, so nobody is left with an order the store does not have. Moves
    /// applied after the failed one are taken back too (the store refuses them, as they were
    /// built on it). A gesture in progress ends as a cancel; the content stays where it is.
    func takeBackUnstoredMoves() {
        moveGeneration += 1
        rowMoveVersion = durableRowMoveVersion
        let time = changeTimeNow
        if let claim, let index = viewers.firstIndex(where: { $0.id == claim.viewer }) {
            cancelClaim(id: viewers[index].lastInputID ?? 0, at: time, cause: .takeBack)
            announceDriver()
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
    func announcePresence(urgent: Bool, joiner: String? = nil) {
        let current = now
        if urgent || current >= lastPresenceTime + Self.presenceInterval {
            broadcastPresence(except: joiner, at: current)
        } else {
            presencePending = true
        }
    }

    func broadcastPresence(except excluded: String?, at time: Double) {
        presencePending = false
        guard viewers.contains(where: { $0.id != excluded }) else { return }
        lastPresenceTime = time
        inputsStream.presenceOwedSince = nil   // told now, with the rest
        sendPresence(to: excluded.map { .everyoneExcept($0) } ?? .everyone)
    }

    /// Presence now to `audience` (a joiner alone, when its snapshot cannot say it all).
    func sendPresence(to audience: Audience) {
        channel.send(presenceMessage(), to: audience)
    }

    private func presenceMessage() -> RoomMessage {
        let (count, driver, locked) = (viewers.count, claim?.viewer, isLocked)
        let (exploring, granted) = presenceSharing
        return forEveryVersion(
            v1: { ServerMessageEncoder.presence(viewers: count, driver: driver, locked: locked, exploring: exploring, granted: granted) },
            v2: { ServerMessageEncoderV2.presence(viewers: count, driver: driver, locked: locked, exploring: exploring, granted: granted) })
    }
}
