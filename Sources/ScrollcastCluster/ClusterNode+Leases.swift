import ScrollcastRooms

/// The leases this node holds: claimed for the links, renewed every `renewMilliseconds`,
/// checked by every publish and write (fencing), given back when a room leaves memory here.
extension ClusterNode: RoomPublishing {
    /// Claims room `room`; `outcome` runs on the room thread.
    func claim(room: String, outcome: @escaping (Result<ClaimOutcome, ClusterBackendError>) -> Void) {
        backend.claim(room: room, node: nodeID, leaseMilliseconds: configuration.leaseMilliseconds) { [self] result in
            if case .success(.granted(let lease)) = result {
                leases[room] = HeldLease(lease: lease, confirmedAt: clock.nowMilliseconds())
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
        return clock.nowMilliseconds() - held.confirmedAt < configuration.leaseMilliseconds - configuration.renewMilliseconds
    }

    func publish(_ envelope: RelayEnvelope, under lease: RoomLease) {
        guard holds(lease) else { return }
        let payload = envelope.encoded()
        metrics.brokerBytes.increment(by: payload.count)
        backend.publish(payload, frameSequence: envelope.kind == .frame ? envelope.sequence : nil, under: lease) { [self] result in
            if case .success(.fenced) = result { lost(room: lease.room, holder: nil) }
        }
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
            backend.renew(lease, leaseMilliseconds: configuration.leaseMilliseconds) { [self] result in
                guard holds(lease) else {
                    // Renewed after this node gave the room up (a fenced write raced the renewal):
                    // give the lease back rather than leave other nodes waiting out its TTL.
                    if case .success(.renewed) = result { backend.release(lease) }
                    return
                }
                switch result {
                case .success(.renewed):
                    leases[lease.room]?.confirmedAt = clock.nowMilliseconds()
                    channelRelay.channel(of: lease.room)?.resume()
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
    func backendReceived(nodeMessage payload: [UInt8]) {
        guard let message = NodeMessage.decode(payload), message.node != nodeID, let link = links[message.room] else { return }
        switch message {
        case let .roster(_, node, viewers): link.roster(viewers, from: node, at: clock.nowMilliseconds())
        case let .input(_, node, viewer, input): link.remoteInput(input, viewer: viewer, from: node)
        }
    }

    func backendReceived(_ payload: [UInt8], room: String) {
        guard let link = links[room], let envelope = RelayEnvelope.decode(payload), envelope.node != nodeID else { return }
        link.deliver(envelope)
    }

    func backendSubscribed(room: String) {
        links[room]?.step(.subscribed(losses: subscriberLosses))
    }

    func backendCommandLink(down reason: String?) {
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

    func backendSubscriberLink(down reason: String?) {
        if let reason {
            subscriberUpSince = nil
            subscriberLosses += 1
            logger.error("lost Redis (pub/sub); viewers of rooms run elsewhere wait for it", metadata: ["reason": "\(reason)"])
        } else {
            subscriberUpSince = clock.nowMilliseconds()
            logger.notice("connected to Redis (pub/sub)")
        }
    }
}
