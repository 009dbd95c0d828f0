import ScrollcastServer
import ScrollWire

/// A link in remote mode: another node runs the room, and this node passes its viewers' part
/// on (rosters, inputs) and hands them what the owner publishes.
extension RoomLink {
    /// The room channel's subscription took effect: the first time, the owner gets the roster;
    /// after a reconnect, the owner may have sent things this node missed, so every viewer here
    /// asks for a fresh snapshot.
    func subscriptionConfirmed() {
        guard isRemote else { return }
        // A new subscription may be confirmed twice (by `listen` finding it already confirmed,
        // then by Redis's reply): only one after the subscriber lost its link means a gap.
        let again = subscribed
        if again, subscribedAfterLosses == node.subscriberLosses { return }
        subscribed = true
        subscribedAfterLosses = node.subscriberLosses
        if again { resynchronise() } else { sendRoster() }
        // Inputs that came before the owner knew these viewers go after the roster, on the same
        // connection, so they arrive after it.
        let inputs = waitingInputs
        waitingInputs = []
        for (input, viewer) in inputs { handle(input, from: viewer) }
    }

    /// Every viewer here asks the owner for a fresh snapshot and gets nothing else until it
    /// comes: after a gap in the subscription (messages may be missing) or under a new owner
    /// (frames of the old one may still wait in the viewers' connections).
    func resynchronise() {
        for index in viewers.indices {
            viewers[index].generation += 1
            awaitSnapshot(viewers[index].join.viewer)
        }
        sendRoster()
    }

    /// Viewer `id` gets nothing from the owner but its snapshot, until that comes.
    func awaitSnapshot(_ id: String) {
        delivery.detach(id)
        awaitingSnapshot.insert(id)
    }

    /// Sends the owner who watches the room from here.
    func sendRoster() {
        guard isRemote, subscribed, let owner else { return }
        let roster = viewers.map {
            NodeMessage.RosterViewer(id: $0.join.viewer, version: $0.join.version.rawValue, generation: $0.generation,
                                     key: $0.join.request.driverKey,
                                     resumable: $0.join.request.wantsResumePoint ? true : nil,
                                     resume: $0.join.request.resume,
                                     inputs: $0.join.request.inputs ? true : nil)
        }
        node.send(.roster(room: name, node: node.nodeID, viewers: roster), to: owner)
    }

    /// Something the owner published.
    func deliver(_ envelope: RelayEnvelope) {
        guard isRemote else { return }
        guard envelope.epoch >= epoch else {
            node.metrics.staleDropped.increment()
            return
        }
        if envelope.epoch > epoch || owner != envelope.node {
            epoch = envelope.epoch
            owner = envelope.node
            resynchronise()
        }
        switch envelope.kind {
        case .owner:
            break
        case .reliable:
            if case .viewer(let id) = envelope.audience, awaitingSnapshot.contains(id) {
                // The first message the owner sends a viewer it (re)joins is its snapshot.
                guard let join = viewers.first(where: { $0.join.viewer == id })?.join else { return }
                if let form = envelope.message[join.version] {
                    join.sink.sendReliable(form)
                    node.serverMetrics.bytesOut.increment(by: form.count)
                }
                awaitingSnapshot.remove(id)
                delivery.attach(id, sink: join.sink, version: join.version, watchesInputs: join.request.inputs)
                answered(id)
            } else {
                delivery.send(envelope.message, to: envelope.audience)
            }
        case .frame:
            lastSequence = max(lastSequence, envelope.sequence)
            delivery.sendFrame(envelope.message)
            node.metrics.framesRelayed.increment()
            node.metrics.brokerLag.recordNanoseconds(Int64(max(0, node.wallClock() - envelope.publishedAt) * 1_000_000))
        }
    }

}
