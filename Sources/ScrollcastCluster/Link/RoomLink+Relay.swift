import ScrollcastRooms
import ScrollWire

/// The link's data plane: as a follower it hands the owner's messages to its viewers and tells
/// the owner who watches here; as the owner it keeps other nodes' viewers in the room.
extension RoomLink {
    /// Viewer `id` gets nothing from the owner but its snapshot, until that comes.
    func awaitSnapshot(_ id: String) {
        delivery.detach(id)
        awaitingSnapshot.insert(id)
        // Asked for by the next roster (a new generation, or a first join), timed from then.
        snapshotAskedAt[id] = nil
    }

    /// Sends the owner who watches the room from here (only called by effects of a live follower).
    func sendRoster() {
        guard case .follower(let follower) = state, let owner = follower.owner else { return }
        askAgainForLostSnapshots()
        let roster = viewers.map {
            NodeMessage.RosterViewer(id: $0.join.viewer, version: $0.join.version.rawValue, generation: $0.generation,
                                     key: $0.join.request.driverKey,
                                     resumable: $0.join.request.wantsResumePoint ? true : nil,
                                     resume: $0.join.request.resume,
                                     inputs: $0.join.request.inputs ? true : nil,
                                     complete: $0.join.request.complete ? true : nil,
                                     stream: $0.join.request.stream == .inputs ? ViewerStream.inputs.rawValue : nil,
                                     engine: $0.join.request.stream == .inputs ? $0.join.request.engine : nil,
                                     batchMs: $0.join.request.stream == .inputs ? $0.join.request.batchMs : nil)
        }
        node.send(.roster(room: name, node: node.nodeID, viewers: roster), to: owner)
    }

    /// A snapshot still not here a roster period after a roster asked for it was lost on the way
    /// (timed from the roster, not the join: a subscription slow to be confirmed is no loss): the
    /// owner published it while its command link was down (its pub/sub link came back first, so
    /// the roster asking for it got through), or the broker dropped it. The owner sends a snapshot
    /// only for a generation it has not seen, and nothing else would ever bring the viewer its
    /// picture, so the next roster asks again with a new one. At worst (a snapshot slower than a
    /// period) the viewer gets a second snapshot, which a client takes as any snapshot.
    private func askAgainForLostSnapshots() {
        let now = node.clock.nowMilliseconds()
        snapshotAskedAt = snapshotAskedAt.filter { awaitingSnapshot.contains($0.key) }
        for index in viewers.indices where awaitingSnapshot.contains(viewers[index].join.viewer) {
            let id = viewers[index].join.viewer
            guard let asked = snapshotAskedAt[id] else {
                snapshotAskedAt[id] = now   // this roster asks
                continue
            }
            guard now - asked >= node.configuration.rosterMilliseconds else { continue }
            viewers[index].generation += 1
            snapshotAskedAt[id] = now
            node.metrics.snapshotsAskedAgain.increment()
            node.logger.notice("asking again for a snapshot not come", metadata: [
                "room": "\(name)", "viewer": "\(id)", "waited ms": "\(Int(now - asked))"])
        }
    }

    /// Something the owner published: the state machine says whether it is stale or names a new
    /// owner (then every viewer here resynchronises first).
    func deliver(_ envelope: RelayEnvelope) {
        let (next, effects) = LinkMachine.next(state, on: .published(epoch: envelope.epoch, node: envelope.node))
        state = next
        for effect in effects {
            switch effect {
            case .dropStale: node.metrics.staleDropped.increment()
            case .deliver: hand(envelope)
            default: perform(effect)
            }
        }
    }

    private func hand(_ envelope: RelayEnvelope) {
        switch envelope.kind {
        case .owner:
            break
        case .movedToFrames:
            if case .viewer(let id) = envelope.audience { takeFrames(id) }
        case .reliable:
            if case .viewer(let id) = envelope.audience, awaitingSnapshot.contains(id) {
                // The first message the owner sends a viewer it (re)joins is its snapshot.
                guard let join = viewers.first(where: { $0.join.viewer == id })?.join else { return }
                if let form = envelope.message[join.version] {
                    join.sink.sendReliable(form)
                    node.serverMetrics.bytesOut.increment(by: form.count)
                }
                awaitingSnapshot.remove(id)
                delivery.attach(id, sink: join.sink, version: join.version, watchesInputs: join.request.inputs,
                                complete: join.request.complete, stream: join.request.stream,
                                batchMs: join.request.batchMs ?? 0)
                answered(id)
            } else {
                delivery.send(envelope.message, to: envelope.audience)
                // Batches and beats are the inputs stream's frames: their lag is the broker's too.
                if envelope.audience.isInputsStream { recordLag(envelope) }
            }
        case .frame:
            lastSequence = max(lastSequence, envelope.sequence)
            delivery.sendFrame(envelope.message)
            node.metrics.framesRelayed.increment()
            recordLag(envelope)
        }
    }

    private func recordLag(_ envelope: RelayEnvelope) {
        node.metrics.brokerLag.recordNanoseconds(Int64(max(0, node.wallClock() - envelope.publishedAt) * 1_000_000))
    }

    /// Viewer `id` of the inputs stream asks for a keyframe: the owner's room answers it (a
    /// fresh snapshot, or the move to frames) through the relay, as one node would. False when it
    /// does not take the inputs stream here (a protocol error).
    func requestKeyframe(for id: String) -> Bool {
        if let room { return room.requestKeyframe(for: id) }
        guard viewers.contains(where: { $0.join.viewer == id && $0.join.request.stream == .inputs }) else { return false }
        // One waiting for its snapshot gets the room as it is anyway; with no live owner the
        // snapshot comes when one is (a new owner, or the subscription back).
        guard !awaitingSnapshot.contains(id), case .follower(let follower) = state, case .live = follower.subscription,
              let owner = follower.owner else { return true }
        node.send(.keyframe(room: name, node: node.nodeID, viewer: id), to: owner)
        return true
    }

    /// The owner moved viewer `id` from the inputs stream to frames (it kept asking for
    /// keyframes): it is delivered frames here from now on, and named so in rosters.
    private func takeFrames(_ id: String) {
        guard let index = viewers.firstIndex(where: { $0.join.viewer == id }) else { return }
        viewers[index].join.request.stream = .frames
        viewers[index].join.request.inputs = true
        viewers[index].join.request.complete = true
        guard !awaitingSnapshot.contains(id) else { return }
        let join = viewers[index].join
        delivery.detach(id)
        delivery.attach(id, sink: join.sink, version: join.version, watchesInputs: true, complete: true, stream: .frames)
    }

    // MARK: Owner

    /// Viewer `viewer` of node `remoteNode` asks for a keyframe: answered by the room run here,
    /// and a move to frames told to its node.
    func remoteKeyframe(for viewer: String, from remoteNode: String) {
        guard let room, remoteNodes[remoteNode]?.viewers[viewer] != nil else { return }
        if room.keyframe(for: viewer) == .movedToFrames {
            node.channelRelay.channel(of: name)?.announce(.movedToFrames, to: .viewer(viewer))
        }
    }

    /// Node `from`'s viewers of the room are exactly `roster`.
    func roster(_ roster: [NodeMessage.RosterViewer], from remoteNode: String, at now: Double) {
        guard let room else { return }
        var entry = remoteNodes[remoteNode] ?? RemoteNode(lastRoster: now)
        entry.lastRoster = now
        // A node names only its own viewers: its names start with its id.
        let valid = roster.filter { $0.id.hasPrefix(remoteNode + "/") && WireVersion(rawValue: $0.version) != nil }
        let listed = Set(valid.map(\.id))
        for id in entry.viewers.keys where !listed.contains(id) {
            room.leave(viewer: id)
            entry.viewers[id] = nil
        }
        for viewer in valid {
            if let generation = entry.viewers[viewer.id] {
                if generation != viewer.generation { room.sendSnapshot(to: viewer.id) }
            } else if !room.hasViewer(viewer.id) {
                room.admit(ViewerJoin(viewer: viewer.id, sink: RemoteViewerSink(node: remoteNode),
                                      version: WireVersion(rawValue: viewer.version) ?? .v1,
                                      request: viewer.joinRequest(room: name), newKey: nil),
                           createdHere: false)
            }
            entry.viewers[viewer.id] = viewer.generation
        }
        remoteNodes[remoteNode] = entry.viewers.isEmpty ? nil : entry
    }

    /// An input of viewer `viewer` on node `remoteNode`.
    func remoteInput(_ input: InputMessage, viewer: String, from remoteNode: String) {
        guard let room, remoteNodes[remoteNode]?.viewers[viewer] != nil else {
            // Never dropped in silence: the viewer's node hands the refusal to it.
            return node.refuseRemote(input.id, viewer: viewer, of: remoteNode, room: name,
                                     reason: self.room == nil ? Self.notRunHereReason : Self.unknownViewerReason)
        }
        if keptInDoubt(input, viewer: viewer, from: remoteNode) { return }
        room.handle(input, from: viewer)
    }

    /// Drops the viewers of nodes that sent no roster for `timeout` ms (the node died, or lost
    /// its link): presence counts only viewers someone still serves.
    func dropSilentNodes(now: Double, timeout: Double) {
        guard let room else { return }
        let silent = remoteNodes.filter { now - $0.value.lastRoster >= timeout }
        guard !silent.isEmpty else { return }
        for (remoteNode, entry) in silent {
            node.logger.notice("dropping viewers of a silent node", metadata: [
                "room": "\(name)", "node": "\(remoteNode)", "viewers": "\(entry.viewers.count)"])
            for id in entry.viewers.keys { room.leave(viewer: id) }
            remoteNodes[remoteNode] = nil
        }
    }
}
