import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// The link's transition function on its own: (state, event) → (state, effects).
@Suite("Link state machine")
struct LinkMachineTests {
    static let lease = RoomLease(room: "lobby", node: "n1", epoch: 4)
    static let holder = LeaseHolder(node: "n2", epoch: 5)

    func follower(owner: String? = "n2", epoch: UInt64 = 5, live: Int? = 0, claiming: Bool = false) -> LinkState {
        .follower(.init(owner: owner, epoch: epoch, subscription: live.map { .live(losses: $0) } ?? .pending, claiming: claiming))
    }

    @Test("first claim: granted loads then runs; held follows and subscribes; failed closes the waiting viewers (1013)")
    func firstClaim() {
        let start = LinkState.claiming(seenEpoch: 0)
        #expect(LinkMachine.next(start, on: .start) == (start, [.claim]))
        let granted = LinkMachine.next(start, on: .claimGranted(Self.lease))
        #expect(granted == (.starting(.init(lease: Self.lease, follower: nil)), [.load(Self.lease)]))
        #expect(LinkMachine.next(granted.state, on: .loaded(Self.lease, nil)) == (.owner(Self.lease), [.run(Self.lease, nil, takeover: false)]))
        #expect(LinkMachine.next(start, on: .claimHeld(Self.holder)) == (follower(live: nil), [.awaitSnapshots, .subscribe]))
        #expect(LinkMachine.next(start, on: .claimFailed("down"))
                == (.closed, [.fail(.clusterUnavailable("down")), .forget]))
        #expect(LinkMachine.next(granted.state, on: .loadFailed(Self.lease, "down"))
                == (.closed, [.release(Self.lease), .fail(.storeUnavailable("down")), .forget]))
    }

    @Test("takeover: a follower's watch claims; granted, it unsubscribes and runs the room as a takeover")
    func takeover() {
        let watching = LinkMachine.next(follower(), on: .watch(now: 0, hasViewers: true, idleMilliseconds: 10_000))
        #expect(watching == (follower(claiming: true), [.claim]))
        // A second watch while the claim is out asks nothing more.
        #expect(LinkMachine.next(watching.state, on: .watch(now: 500, hasViewers: true, idleMilliseconds: 10_000)).effects == [])
        let lease = RoomLease(room: "lobby", node: "n1", epoch: 6)
        let starting = LinkMachine.next(watching.state, on: .claimGranted(lease))
        guard case .starting(let s) = starting.state else { Issue.record("not starting: \(starting.state)"); return }
        #expect(s.follower != nil && starting.effects == [.load(lease)])
        #expect(LinkMachine.next(starting.state, on: .loaded(lease, nil)) == (.owner(lease), [.unsubscribe, .run(lease, nil, takeover: true)]))
        // The store cannot be read: back to following, the lease given back.
        #expect(LinkMachine.next(starting.state, on: .loadFailed(lease, "x")) == (follower(), [.release(lease)]))
        // A grant nobody waits for is given back.
        #expect(LinkMachine.next(.owner(Self.lease), on: .claimGranted(lease)) == (.owner(Self.lease), [.release(lease)]))
    }

    @Test("fencing: an owner that loses its lease stops the room and follows the holder; a stale owner's messages are dropped")
    func fencing() {
        #expect(LinkMachine.next(.owner(Self.lease), on: .leaseLost(holder: Self.holder, hasViewers: true))
                == (follower(live: nil), [.stopRoom, .awaitSnapshots, .subscribe]))
        #expect(LinkMachine.next(.owner(Self.lease), on: .leaseLost(holder: nil, hasViewers: false)) == (.closed, [.stopRoom, .forget]))
        // Fenced with no holder known: the epoch seen stays the lease's, so its own old messages are stale.
        #expect(LinkMachine.next(.owner(Self.lease), on: .leaseLost(holder: nil, hasViewers: true)).state
                == follower(owner: nil, epoch: 4, live: nil))
        #expect(LinkMachine.next(follower(), on: .published(epoch: 4, node: "n1")) == (follower(), [.dropStale]))
        #expect(LinkMachine.next(follower(), on: .published(epoch: 5, node: "n2")) == (follower(), [.deliver]))
        // A newer owner: resynchronise before delivering its message.
        #expect(LinkMachine.next(follower(), on: .published(epoch: 7, node: "n3"))
                == (follower(owner: "n3", epoch: 7), [.resynchronise, .sendRoster, .deliver]))
        // A claim answered by an older holder changes nothing.
        #expect(LinkMachine.next(follower(claiming: true), on: .claimHeld(.init(node: "n1", epoch: 4))) == (follower(), []))
        #expect(LinkMachine.next(follower(claiming: true), on: .claimHeld(.init(node: "n3", epoch: 6)))
                == (follower(owner: "n3", epoch: 6), [.resynchronise, .sendRoster]))
    }

    @Test("resync: the first confirmation sends the roster; one after a lost link resynchronises; the same one twice is ignored")
    func resync() {
        let pending = follower(live: nil)
        #expect(LinkMachine.next(pending, on: .subscribed(losses: 0)) == (follower(live: 0), [.sendRoster, .replayWaitingInputs]))
        #expect(LinkMachine.next(follower(live: 0), on: .subscribed(losses: 0)) == (follower(live: 0), []))
        #expect(LinkMachine.next(follower(live: 0), on: .subscribed(losses: 1))
                == (follower(live: 1), [.resynchronise, .sendRoster, .replayWaitingInputs]))
    }

    @Test("inputs: applied by the owner, forwarded by a live follower, kept while claiming or subscribing, refused with the backend away")
    func inputs() {
        #expect(LinkMachine.route(.owner(Self.lease), connected: false) == .apply)
        #expect(LinkMachine.route(.claiming(seenEpoch: 0), connected: true) == .wait)
        #expect(LinkMachine.route(follower(live: nil), connected: true) == .wait)
        #expect(LinkMachine.route(follower(), connected: true) == .forward(to: "n2"))
        #expect(LinkMachine.route(follower(), connected: false) == .refuse)
        #expect(LinkMachine.route(follower(owner: nil), connected: true) == .refuse)
    }

    @Test("an empty follower stays subscribed for the idle time, then closes; a viewer coming back keeps it")
    func idleFollow() {
        let first = LinkMachine.next(follower(), on: .watch(now: 1_000, hasViewers: false, idleMilliseconds: 10_000))
        guard case .follower(let f) = first.state else { Issue.record("closed early"); return }
        #expect(f.emptySince == 1_000 && first.effects == [])
        #expect(LinkMachine.next(first.state, on: .watch(now: 10_999, hasViewers: false, idleMilliseconds: 10_000)).state.isFollower)
        #expect(LinkMachine.next(first.state, on: .watch(now: 11_000, hasViewers: false, idleMilliseconds: 10_000)) == (.closed, [.forget]))
        let back = LinkMachine.next(first.state, on: .viewerJoined("n1/v9"))
        #expect(back == (follower(), [.awaitSnapshot("n1/v9"), .sendRoster]))
    }

    @Test("eviction: an owner with no viewers closes; with viewers it claims again; too many rooms closes the viewers")
    func eviction() {
        #expect(LinkMachine.next(.owner(Self.lease), on: .evicted(hasViewers: false)) == (.closed, [.stopRoom, .forget]))
        #expect(LinkMachine.next(.owner(Self.lease), on: .evicted(hasViewers: true)) == (.claiming(seenEpoch: 4), [.stopRoom, .claim]))
        #expect(LinkMachine.next(.owner(Self.lease), on: .roomRefused(Self.lease, .tooManyRooms(limit: 1)))
                == (.closed, [.stopRoom, .release(Self.lease), .fail(.tooManyRooms(limit: 1)), .forget]))
        #expect(LinkMachine.next(.owner(Self.lease), on: .rosterTick(heard: true)) == (.owner(Self.lease), [.dropSilentNodes]))
        #expect(LinkMachine.next(.owner(Self.lease), on: .rosterTick(heard: false)).effects == [])
    }
}
