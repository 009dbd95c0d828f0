import ScrollcastRooms

/// The link's transitions: pure functions of (state, event), returning the next state and the
/// effects for the driver to execute. Nothing here touches the room, the viewers or the backend,
/// so every path is a unit test (Tests/ScrollcastClusterTests/LinkMachineTests.swift).
enum LinkMachine {
    typealias Step = (state: LinkState, effects: [LinkEffect])

    static func next(_ state: LinkState, on event: LinkEvent) -> Step {
        switch event {
        case .start:
            guard case .claiming = state else { return (state, []) }
            return (state, [.claim])
        case .viewerJoined(let id):
            return joined(id, state)
        case .viewerLeft:
            guard case .follower(let follower) = state, follower.isLive else { return (state, []) }
            // An empty follower stays subscribed for a while (`watch` lets it go).
            return (state, [.sendRoster])
        case .claimGranted(let lease):
            return granted(lease, state)
        case .claimHeld(let holder):
            return held(holder, state)
        case .claimFailed(let message):
            switch state {
            case .claiming: return (.closed, [.fail(.clusterUnavailable(message)), .forget])
            case .follower(var follower):
                follower.claiming = false
                return (.follower(follower), [])
            default: return (state, [])
            }
        case let .loaded(lease, loaded):
            guard case .starting(let starting) = state, starting.lease == lease else { return (state, []) }
            let takeover = starting.follower?.owner != nil
            return (.owner(lease), (starting.follower != nil ? [.unsubscribe] : []) + [.run(lease, loaded, takeover: takeover)])
        case let .loadFailed(lease, message):
            guard case .starting(let starting) = state, starting.lease == lease else { return (state, []) }
            guard var follower = starting.follower else {
                return (.closed, [.release(lease), .fail(.storeUnavailable(message)), .forget])
            }
            follower.claiming = false
            return (.follower(follower), [.release(lease)])
        case let .roomRefused(lease, failure):
            guard case .owner(lease) = state else { return (state, []) }
            return (.closed, [.stopRoom, .release(lease), .fail(failure), .forget])
        case .subscribed(let losses):
            return subscribed(losses, state)
        case let .published(epoch, node):
            return published(epoch: epoch, node: node, state)
        case let .leaseLost(holder, hasViewers):
            let lease: RoomLease
            switch state {
            case .owner(let held): lease = held
            case .starting(let starting): lease = starting.lease
            default: return (state, [])
            }
            // Stepped down: the room stops here at once, without writing anything.
            guard hasViewers else { return (.closed, [.stopRoom, .forget]) }
            let follower = LinkState.Follower(owner: holder?.node, epoch: max(lease.epoch, holder?.epoch ?? 0))
            return (.follower(follower), [.stopRoom, .awaitSnapshots, .subscribe])
        case .evicted(let hasViewers):
            guard case .owner(let lease) = state else { return (state, []) }
            guard hasViewers else { return (.closed, [.stopRoom, .forget]) }
            return (.claiming(seenEpoch: lease.epoch), [.stopRoom, .claim])
        case let .watch(now, hasViewers, idle):
            guard case .follower(var follower) = state else { return (state, []) }
            if hasViewers {
                follower.emptySince = nil
                guard !follower.claiming else { return (.follower(follower), []) }
                // A claim takes the room if its owner is gone, and otherwise names the owner.
                follower.claiming = true
                return (.follower(follower), [.claim])
            }
            // Nobody here watches it any more: kept a while for a viewer coming back, then let go.
            let since = follower.emptySince ?? now
            if now - since >= idle { return (.closed, [.forget]) }
            follower.emptySince = since
            return (.follower(follower), [])
        case .rosterTick(let heard):
            switch state {
            case .follower(let follower) where follower.isLive: return (state, [.sendRoster])
            case .owner where heard: return (state, [.dropSilentNodes])
            default: return (state, [])
            }
        }
    }

    /// Where an input of a viewer here goes; `connected`: the backend's command link is up.
    static func route(_ state: LinkState, connected: Bool) -> InputRoute {
        switch state {
        case .owner: return .apply
        case .claiming, .starting: return .wait
        case .closed: return .refuse
        case .follower(let follower):
            guard follower.isLive else { return .wait }
            guard let owner = follower.owner, connected else { return .refuse }
            return .forward(to: owner)
        }
    }

    // MARK: -

    private static func joined(_ id: String, _ state: LinkState) -> Step {
        switch state {
        case .owner: return (state, [.admit(id)])
        case .follower(var follower):
            follower.emptySince = nil
            return (.follower(follower), [.awaitSnapshot(id)] + (follower.isLive ? [.sendRoster] : []))
        case .claiming, .starting, .closed: return (state, [])
        }
    }

    private static func granted(_ lease: RoomLease, _ state: LinkState) -> Step {
        switch state {
        case .claiming:
            return (.starting(.init(lease: lease, follower: nil)), [.load(lease)])
        case .follower(var follower) where follower.claiming:
            follower.claiming = false
            return (.starting(.init(lease: lease, follower: follower)), [.load(lease)])
        default:
            // Nobody here asked for it any more: give it back rather than leave others waiting.
            return (state, [.release(lease)])
        }
    }

    private static func held(_ holder: LeaseHolder, _ state: LinkState) -> Step {
        switch state {
        case .claiming(let seen):
            // A holder older than one seen is stale; the watch claims again and settles it.
            let follower = LinkState.Follower(owner: holder.node, epoch: max(seen, holder.epoch))
            return (.follower(follower), [.awaitSnapshots, .subscribe])
        case .follower(var follower):
            follower.claiming = false
            guard holder.epoch >= follower.epoch else { return (.follower(follower), []) }
            let changed = follower.owner != holder.node || holder.epoch != follower.epoch
            follower.owner = holder.node
            follower.epoch = holder.epoch
            // A new owner: frames of the old one may still wait in the viewers' connections.
            return (.follower(follower), changed && follower.isLive ? [.resynchronise, .sendRoster] : [])
        default:
            return (state, [])
        }
    }

    private static func subscribed(_ losses: Int, _ state: LinkState) -> Step {
        guard case .follower(var follower) = state else { return (state, []) }
        // A subscription may be confirmed twice (by `subscribe` finding it already confirmed,
        // then by Redis's reply): only one after the subscriber lost its link means a gap.
        if case .live(let before) = follower.subscription, before == losses { return (state, []) }
        let again = follower.isLive
        follower.subscription = .live(losses: losses)
        // Inputs that came before the owner knew these viewers go after the roster, on the same
        // connection, so they arrive after it.
        return (.follower(follower), (again ? [.resynchronise] : []) + [.sendRoster, .replayWaitingInputs])
    }

    private static func published(epoch: UInt64, node: String, _ state: LinkState) -> Step {
        guard case .follower(var follower) = state else { return (state, []) }
        guard epoch >= follower.epoch else { return (state, [.dropStale]) }
        guard epoch > follower.epoch || follower.owner != node else { return (state, [.deliver]) }
        follower.epoch = epoch
        follower.owner = node
        return (.follower(follower), [.resynchronise] + (follower.isLive ? [.sendRoster] : []) + [.deliver])
    }
}

extension LinkState.Follower {
    /// Whether the owner may hear from this node (its subscription is confirmed).
    var isLive: Bool { if case .live = subscription { true } else { false } }
}
