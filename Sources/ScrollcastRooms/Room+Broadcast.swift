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
                    if let self, !self.abandoned, generation == self.moveGeneration {
                        self.takeBackUnstoredMoves()
                        // No viewer's message sets the frame timer after this: the cancel and
                        // the order taken back may want frames on their own.
                        self.changedOnItsOwn()
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
        rowVersion = durableVersion
        let time = max(now, changeFloor)
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
    func announcePresence(urgent: Bool, joiner: String? = nil) {
        let current = now
        if urgent || current >= lastPresenceTime + Self.presenceInterval {
            broadcastPresence(except: joiner, at: current)
        } else {
            presencePending = true
            tickDueMayHaveChanged()
        }
    }

    func broadcastPresence(except excluded: String?, at time: Double) {
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
