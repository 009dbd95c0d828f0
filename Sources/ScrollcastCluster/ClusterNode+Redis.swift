import Redis
import ScrollcastServer

/// The outcome of a claim.
enum ClaimOutcome {
    /// This node holds the room's lease now.
    case granted(RoomLease)
    /// A live node holds it with this epoch.
    case held(node: String, epoch: UInt64)
}

extension ClusterNode: RedisScripting, RoomPublishing {
    func run(_ script: String, keys: [String], arguments: [[UInt8]],
             reply: @escaping (Result<RedisValue, RedisError>) -> Void) {
        let command: [[UInt8]] = [Array("EVAL".utf8), Array(script.utf8), Array(String(keys.count).utf8)]
            + keys.map { Array($0.utf8) } + arguments
        let hop = SchedulerHop(scheduler: scheduler)
        let box = UncheckedBox(reply)
        commands.send(command) { result in hop.hop { box.value(result) } }
    }

    var isConnected: Bool { commands.isConnected }

    func leaseValue(of room: String) -> String? {
        leases[room]?.value
    }

    /// Whether this node still holds exactly `lease`.
    func holds(_ lease: RoomLease) -> Bool {
        leases[lease.room]?.lease == lease
    }

    func fenced(room: String) {
        lost(room: room, holder: nil)
    }

    func mayDeliver(under lease: RoomLease) -> Bool {
        guard let held = leases[lease.room], held.lease == lease else { return false }
        // With Redis away nobody can take the room: keep serving the viewers here.
        guard commands.isConnected else { return true }
        return clock.nowMilliseconds() - held.confirmedAt < configuration.leaseMilliseconds - configuration.renewMilliseconds
    }

    func publish(_ envelope: RelayEnvelope, under lease: RoomLease) {
        guard let held = leases[lease.room], held.lease == lease else { return }
        let payload = envelope.encoded()
        metrics.brokerBytes.increment(by: payload.count)
        run(ClusterScripts.publish, keys: [keys.lease(lease.room), keys.state(lease.room)],
            arguments: [Array(held.value.utf8), Array(keys.roomChannel(lease.room).utf8), payload,
                        envelope.kind == .frame ? Array(String(envelope.sequence).utf8) : []]) { [self] result in
            if case .success(.integer(-1)) = result { lost(room: lease.room, holder: nil) }
        }
    }

    /// Tells the nodes with viewers of `room` that this node runs it now, under `lease`.
    func announceOwner(of room: String, lease: RoomLease) {
        publish(RelayEnvelope(kind: .owner, epoch: lease.epoch, publishedAt: wallClock(), node: nodeID, v1: [], v2: nil),
                under: lease)
    }

    /// Sends `message` to node `node`'s channel.
    func send(_ message: NodeMessage, to node: String) {
        commands.send([Array("PUBLISH".utf8), Array(keys.nodeChannel(node).utf8), message.encoded()]) { _ in }
    }

    /// Claims room `room`; `outcome` runs on the room thread.
    func claim(room: String, outcome: @escaping (Result<ClaimOutcome, RedisError>) -> Void) {
        run(ClusterScripts.claim, keys: [keys.lease(room), keys.epoch(room)],
            [nodeID, String(Int(configuration.leaseMilliseconds)), keys.nodeChannelPrefix,
             String(Int(configuration.leaseMilliseconds))]) { [self] result in
            switch result {
            case .failure(let error):
                outcome(.failure(error))
            case .success(let value):
                guard let parts = value.array, parts.count == 3, let status = parts[0].text, let holder = parts[1].text,
                      let epoch = parts[2].text.flatMap({ UInt64($0) }) else {
                    return outcome(.failure(RedisError("unexpected claim reply \(value)")))
                }
                if status == "granted" {
                    let lease = RoomLease(room: room, node: nodeID, epoch: epoch)
                    leases[room] = HeldLease(lease: lease, confirmedAt: clock.nowMilliseconds())
                    metrics.roomsOwned.record(leases.count)
                    outcome(.success(.granted(lease)))
                } else {
                    outcome(.success(.held(node: holder, epoch: epoch)))
                }
            }
        }
    }

    /// Gives up `lease` (the room left memory here, or could not be made).
    func release(_ lease: RoomLease) {
        guard holds(lease) else { return }
        leases[lease.room] = nil
        metrics.roomsOwned.record(leases.count)
        run(ClusterScripts.release, keys: [keys.lease(lease.room)], [ClusterKeys.leaseValue(node: lease.node, epoch: lease.epoch)]) { _ in }
    }

    /// Subscribes to room `room`'s channel. Returns true when Redis has already confirmed it (a
    /// link made again before an unsubscribe took effect): no confirmation will come then.
    func subscribe(room: String) -> Bool {
        let channel = keys.roomChannel(room)
        subscriber.subscribe(channel)
        return subscriber.subscribedChannels.contains(channel)
    }

    func unsubscribe(room: String) {
        subscriber.unsubscribe(keys.roomChannel(room))
    }

    // MARK: Leases

    /// Every `renewMilliseconds`: each lease held is renewed; one found taken makes this node
    /// step down from its room at once.
    func renewLeases() {
        for held in leases.values {
            let lease = held.lease
            run(ClusterScripts.renew, keys: [keys.lease(lease.room), keys.epoch(lease.room)],
                [held.value, String(Int(configuration.leaseMilliseconds)), String(lease.epoch)]) { [self] result in
                guard holds(lease) else {
                    // Renewed after this node gave the room up (a fenced write raced the renewal):
                    // give the lease back rather than leave other nodes waiting out its TTL.
                    if case .success(.integer(1)) = result {
                        run(ClusterScripts.release, keys: [keys.lease(lease.room)], [held.value]) { _ in }
                    }
                    return
                }
                switch result {
                case .success(.integer(1)):
                    leases[lease.room]?.confirmedAt = clock.nowMilliseconds()
                    channelRelay.channel(of: lease.room)?.resume()
                case .success(let value):
                    let holder = value.text.flatMap(ClusterKeys.parseLease)
                    lost(room: lease.room, holder: holder)
                case .failure:
                    // Redis is away: nobody can take the room meanwhile; keep serving.
                    break
                }
            }
        }
    }

    /// This node no longer holds room `room` (another does, `holder` if known): the room stops
    /// here at once, without writing anything, and its viewers here follow the new owner.
    func lost(room: String, holder: (node: String, epoch: UInt64)?) {
        guard let held = leases.removeValue(forKey: room) else { return }
        metrics.roomsOwned.record(leases.count)
        metrics.leaseLosses.increment()
        logger.warning("lost the lease of a room run here; stepping down", metadata: [
            "room": "\(room)", "lease": "\(held.lease)", "holder": "\(holder.map { "\($0.node)#\($0.epoch)" } ?? "unknown")"])
        roomStore.forget(room: room)
        registry.abandon(named: room)
        links[room]?.steppedDown(to: holder?.node, epoch: holder?.epoch)
        roomsChanged()
    }

    // MARK: What Redis sends

    func received(_ payload: [UInt8], on channel: String) {
        if channel == keys.nodeChannel(nodeID) {
            guard let message = NodeMessage.decode(payload), message.node != nodeID, let link = links[message.room] else { return }
            switch message.type {
            case .roster: link.roster(message.viewers ?? [], from: message.node, at: clock.nowMilliseconds())
            case .input:
                if let viewer = message.viewer, let text = message.input { link.remoteInput(text, viewer: viewer, from: message.node) }
            }
        } else if let room = room(ofChannel: channel), let link = links[room], let envelope = RelayEnvelope.decode(payload),
                  envelope.node != nodeID {
            link.deliver(envelope)
        }
    }

    func subscribed(to channel: String) {
        guard let room = room(ofChannel: channel) else { return }
        links[room]?.subscriptionConfirmed()
    }

    func commandLink(_ state: RedisLinkState) {
        switch state {
        case .connected:
            metrics.redisConnected.record(1)
            logger.notice("connected to Redis (commands)")
            // Rooms held across the outage: renew now, so their viewers here wait no longer.
            renewLeases()
        case .disconnected(let reason):
            metrics.redisConnected.record(0)
            logger.error("lost Redis (commands); rooms run here keep serving their viewers here, row moves are refused", metadata: ["reason": "\(reason)"])
        }
    }

    func subscriberLink(_ state: RedisLinkState) {
        switch state {
        case .connected:
            subscriberUpSince = clock.nowMilliseconds()
            logger.notice("connected to Redis (pub/sub)")
        case .disconnected(let reason):
            subscriberUpSince = nil
            subscriberLosses += 1
            logger.error("lost Redis (pub/sub); viewers of rooms run elsewhere wait for it", metadata: ["reason": "\(reason)"])
        }
    }

    private func room(ofChannel channel: String) -> String? {
        let prefix = keys.roomChannel("")
        guard channel.hasPrefix(prefix) else { return nil }
        return String(channel.dropFirst(prefix.count))
    }
}
