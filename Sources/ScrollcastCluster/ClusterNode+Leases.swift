import ScrollcastRooms

/// The leases this node holds: claimed for the links, renewed every `renewMilliseconds`,
/// checked by every publish and write (fencing), given back when a room leaves memory here.
extension ClusterNode: RoomPublishing {
    /// Claims room `room`; `outcome` runs on the room thread.
    func claim(room: String, outcome: @escaping (Result<ClaimOutcome, ClusterBackendError>) -> Void) {
        // A grant runs its TTL from when Redis ran the claim, which is after this: the lease
        // counts as confirmed at the time it was asked for, never at the time the reply is read
        // (a process frozen between the two would otherwise take a stale reply for a fresh one).
        let askedAt = clock.nowMilliseconds()
        backend.claim(room: room, node: nodeID, leaseMilliseconds: configuration.leaseMilliseconds) { [self] result in
            if case .success(.granted(let lease)) = result {
                leases[room] = HeldLease(lease: lease, confirmedAt: askedAt)
                metrics.roomsOwned.record(leases.count)
            }
            outcome(result)
        }
    }

    /// Gives up `lease` (the room left memory here, or could not be made).
    func release(_ lease: RoomLease) {
        guard holds(lease) else { return }
        leases[lease.room] = nil
        metrics.roomsOwned.record(leases.count)
        backend.release(lease)
    }

    /// Whether this node still holds exactly `lease`.
    func holds(_ lease: RoomLease) -> Bool {
        leases[lease.room]?.lease == lease
    }

    /// The lease this node holds on `room`, if it runs the room.
    func lease(of room: String) -> RoomLease? {
        leases[room]?.lease
    }

    func mayDeliver(under lease: RoomLease) -> Bool {
        guard let held = leases[lease.room], held.lease == lease else { return false }
        // With the backend away nobody can take the room: keep serving the viewers here.
        guard backend.isConnected else { return true }
        return isFresh(held)
    }

    /// Whether `held` was confirmed by a request sent less than TTL − renewal interval ago.
    private func isFresh(_ held: HeldLease) -> Bool {
        clock.nowMilliseconds() - held.confirmedAt < configuration.leaseMilliseconds - configuration.renewMilliseconds
    }

    func publish(_ envelope: RelayEnvelope, under lease: RoomLease) {
        guard holds(lease) else { return }
        let payload = envelope.encoded()
        metrics.brokerBytes.increment(by: payload.count)
        backend.publish(payload, frameSequence: envelope.kind == .frame ? envelope.sequence : nil, under: lease) { [self] result in
            if case .success(.fenced) = result { lost(room: lease.room, holder: nil) }
        }
    }

    /// Refuses input `inputID` (nil: a sharing message) of viewer `viewer` on node `remoteNode`
    /// (`unavailable`): sent to that node, which passes it on. Not through the room channel: that
    /// needs a lease.
    func refuseRemote(_ inputID: UInt64?, viewer: String, of remoteNode: String, room: String, reason: String) {
        send(.refused(room: room, node: nodeID, viewer: viewer, input: inputID, code: .unavailable, reason: reason), to: remoteNode)
    }

    /// Tells the nodes with viewers of `room` that this node runs it now, under `lease`.
    func announceOwner(of room: String, lease: RoomLease) {
        publish(RelayEnvelope(kind: .owner, epoch: lease.epoch, publishedAt: wallClock(), node: nodeID, v1: [], v2: nil),
                under: lease)
    }

    /// Every `renewMilliseconds`: each lease held is renewed; one found taken makes this node
    /// step down from its room at once.
    func renewLeases() {
        for held in leases.values {
            let lease = held.lease
            // Redis extends the TTL from when it runs the script, after this: see `claim`.
            let askedAt = clock.nowMilliseconds()
            backend.renew(lease, leaseMilliseconds: configuration.leaseMilliseconds) { [self] result in
                guard holds(lease) else {
                    // Renewed after this node gave the room up (a fenced write raced the renewal):
                    // give the lease back rather than leave other nodes waiting out its TTL.
                    if case .success(.renewed) = result { backend.release(lease) }
                    return
                }
                switch result {
                case .success(.renewed):
                    guard var confirmed = leases[lease.room] else { return }
                    confirmed.confirmedAt = max(confirmed.confirmedAt, askedAt)
                    leases[lease.room] = confirmed
                    // A reply answered before a freeze and read after it proves nothing about
                    // now: what waits stays held until a renewal asked for since is answered.
                    guard isFresh(confirmed) else { return }
                    channelRelay.channel(of: lease.room)?.resume()
                    links[lease.room]?.leaseConfirmed()
                case .success(.lost(let holder)):
                    lost(room: lease.room, holder: holder)
                case .failure:
                    // The backend is away: nobody can take the room meanwhile; keep serving.
                    break
                }
            }
        }
    }

    /// This node no longer holds room `room` (another does, `holder` if known): the room stops
    /// here at once, without writing anything, and its viewers here follow the new owner.
    func lost(room: String, holder: LeaseHolder?) {
        guard let held = leases.removeValue(forKey: room) else { return }
        metrics.roomsOwned.record(leases.count)
        metrics.leaseLosses.increment()
        logger.warning("lost the lease of a room run here; stepping down", metadata: [
            "room": "\(room)", "lease": "\(held.lease)", "holder": "\(holder.map { "\($0.node)#\($0.epoch)" } ?? "unknown")"])
        roomStore.forget(room: room)
        registry.abandon(named: room)
        if let link = links[room] { link.step(.leaseLost(holder: holder, hasViewers: !link.isEmpty)) }
    }
}

/// What the backend reports, on the room thread.
extension ClusterNode: ClusterBackendEvents {
    package func backendReceived(nodeMessage payload: [UInt8]) {
        guard let message = NodeMessage.decode(payload), message.node != nodeID else { return }
        guard let link = links[message.room] else {
            // An input or sharing message for a room this node has forgotten is still answered.
            if case let .input(room, node, viewer, input) = message {
                refuseRemote(input.id, viewer: viewer, of: node, room: room, reason: RoomLink.notRunHereReason)
            } else if case let .sharing(room, node, viewer, _) = message {
                refuseRemote(nil, viewer: viewer, of: node, room: room, reason: RoomLink.sharingNotRunHereReason)
            }
            return
        }
        switch message {
        case let .roster(_, node, viewers): link.roster(viewers, from: node, at: clock.nowMilliseconds())
        case let .input(_, node, viewer, input): link.remoteInput(input, viewer: viewer, from: node)
        case let .keyframe(_, node, viewer): link.remoteKeyframe(for: viewer, from: node)
        case let .sharing(_, node, viewer, request): link.remoteSharing(request, viewer: viewer, from: node)
        case let .refused(_, _, viewer, input, code, reason):
            // Counted (refused inputs) here, on the viewer's node, as a refusal made here is.
            guard viewer.hasPrefix(viewerNamePrefix) else { return }
            if let input { link.refuse(input, code, reason, to: viewer) } else { link.refuseHere(nil, code, reason, to: viewer) }
        }
    }

    package func backendReceived(_ payload: [UInt8], room: String) {
        guard let link = links[room], let envelope = RelayEnvelope.decode(payload), envelope.node != nodeID else { return }
        link.deliver(envelope)
    }

    package func backendSubscribed(room: String) {
        links[room]?.step(.subscribed(losses: subscriberLosses))
    }

    package func backendCommandLink(down reason: String?) {
        noteFirstLinked()
        if let reason {
            metrics.redisConnected.record(0)
            logger.error("lost Redis (commands); rooms run here keep serving their viewers here, row moves are refused", metadata: ["reason": "\(reason)"])
        } else {
            metrics.redisConnected.record(1)
            logger.notice("connected to Redis (commands)")
            // Rooms held across the outage: renew now, so their viewers here wait no longer.
            renewLeases()
        }
    }

    package func backendSubscriberLink(down reason: String?) {
        if let reason {
            subscriberUpSince = nil
            subscriberLosses += 1
            logger.error("lost Redis (pub/sub); viewers of rooms run elsewhere wait for it", metadata: ["reason": "\(reason)"])
        } else {
            subscriberUpSince = clock.nowMilliseconds()
            logger.notice("connected to Redis (pub/sub)")
        }
        noteFirstLinked()
    }

    private func noteFirstLinked() {
        guard backend.isConnected, subscriberUpSince != nil, !firstLinkedSignalled else { return }
        firstLinkedSignalled = true
        firstLinked.signal()
    }
}
