import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// An owner frozen (SIGSTOP) while a renewal of its lease is in flight (docs/cluster.md,
/// "Fencing"): the renewal is answered before the freeze and its reply read after the thaw. A
/// lease counts as confirmed at the time its renewal was asked for, so that reply proves nothing
/// about the time it is read: what was held back stays held, and the inputs the owner kept are
/// applied only after a renewal asked for since succeeds, or refused when the lease is lost.
@Suite("A frozen owner and its renewal in flight")
@RoomActor struct FrozenOwnerTests {
    /// n1 runs "lobby" with viewer `owner`; n2 and n3 follow it, each with a viewer.
    func threeNodes() throws -> (ClusterHarness, owner: TestViewer, follower: TestViewer, remote: TestViewer) {
        let cluster = ClusterHarness(nodes: ["n1", "n2", "n3"])
        let owner = cluster["n1"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { owner.snapshots == 1 })
        let follower = cluster["n2"].viewer(joining: "lobby")
        let remote = cluster["n3"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { follower.snapshots == 1 && remote.snapshots == 1 })
        return (cluster, owner, follower, remote)
    }

    /// Renews n1's leases now (the broker answers at once) and freezes n1 before it reads the reply.
    func freezeDuringRenewal(_ cluster: ClusterHarness) {
        cluster["n1"].cluster.renewLeases()
        cluster["n1"].backend.freeze()
    }

    func refusal(of id: UInt64, in viewer: TestViewer) -> String? {
        viewer.messages.lazy.compactMap { if case .refused(id, let code, _) = $0 { code } else { nil } }.first
    }

    @Test("a renewal answered before the freeze and read after a takeover flushes nothing: the owner steps down, its kept inputs are refused")
    func staleRenewalReply() throws {
        let (cluster, owner, _, remote) = try threeNodes()
        let stale = try #require(cluster.broker.lease(of: "lobby"))
        owner.fling(from: 1, harness: cluster)
        freezeDuringRenewal(cluster)
        // Forwarded to the frozen owner before anyone else runs the room: it waits, unread.
        remote.input(70, t: 200, "pointerDown", #""x":100,"y":600"#)
        try #require(cluster.run(upTo: 5_000) { (cluster.broker.lease(of: "lobby")?.epoch ?? 0) > stale.epoch })
        let newOwner = try #require(cluster.broker.lease(of: "lobby")?.node)
        #expect(newOwner != "n1")
        // The frozen owner's lease ran out: from here on nothing of its room may reach its viewer
        // until the new owner's snapshot. Its viewer's long press reaches the stale room now.
        let mark = owner.sink.received.count
        owner.input(50, t: 4_000, "longPressBegan", #""x":150,"y":300"#)
        cluster.run(500)
        cluster["n1"].backend.thaw()
        try #require(cluster.run(upTo: 3_000) { owner.snapshots >= 2 })
        #expect(cluster["n1"].counter(ClusterMetrics.Name.leaseLosses) == 1)
        #expect(cluster["n1"].cluster.leases["lobby"] == nil)
        #expect(cluster["n1"].link("lobby").map { if case .follower(let f) = $0 { f.owner == newOwner } else { false } } == true)

        let after = owner.sink.received.dropFirst(mark).compactMap { try? ServerMessageDecoder.decode($0.bytes) }
        let firstSnapshot = try #require(after.firstIndex { if case .snapshot = $0 { true } else { false } })
        let beforeSnapshot = after[..<firstSnapshot].filter {
            switch $0 {
            case .refused: false
            default: true
            }
        }
        #expect(beforeSnapshot.isEmpty, "the stale room reached its viewer before the new owner's snapshot: \(beforeSnapshot)")
        // Both kept inputs are answered, with the documented refusal.
        #expect(refusal(of: 50, in: owner) == "unavailable")
        #expect(refusal(of: 70, in: remote) == "unavailable")
        // And the new owner's room is what the thawed node's viewer gets from now on.
        guard case .snapshot(let snapshot) = after[firstSnapshot] else { return }
        #expect(snapshot.frame.seq > 0)
        #expect(snapshot.driver == nil, "the stale owner's long press made its viewer the driver: \(snapshot)")
    }

    @Test("a freeze shorter than the lease: held messages and kept inputs go out, in order, once a renewal asked for after the thaw succeeds")
    func shortFreeze() throws {
        let (cluster, owner, _, remote) = try threeNodes()
        let lease = try #require(cluster.broker.lease(of: "lobby"))
        freezeDuringRenewal(cluster)
        remote.input(70, t: 200, "pointerDown", #""x":100,"y":600"#)
        remote.input(71, t: 216, "pointerUp", #""x":100,"y":600"#)
        // Past the hold-back threshold (TTL − renewal interval), short of the TTL.
        cluster.run(2_300)
        let mark = owner.sink.received.count
        owner.input(50, t: 2_400, "longPressBegan", #""x":150,"y":300"#)
        cluster.run(16)
        #expect(owner.sink.received.count == mark, "a message went out while the lease was in doubt")
        cluster["n1"].backend.thaw()
        try #require(cluster.run(upTo: 1_000) {
            owner.messages.contains { if case .presence(_, let driver, _, _, _) = $0 { driver?.hasPrefix("n1/") == true } else { false } }
        })
        #expect(cluster.broker.lease(of: "lobby") == lease)
        #expect(cluster["n1"].link("lobby")?.isOwner == true)
        // Applied in the order they reached the node: the long press (kept before the thaw)
        // holds the room, so the remote tap read at the thaw is refused by the room itself.
        #expect(refusal(of: 50, in: owner) == nil)
        try #require(cluster.run(upTo: 500) { refusal(of: 71, in: remote) != nil })
        #expect(refusal(of: 70, in: remote) == "driving")
        #expect(refusal(of: 71, in: remote) == "driving")
        #expect((cluster["n1"].counter(ClusterMetrics.Name.leaseLosses) ?? 0) == 0)
    }

    @Test("inputs kept while the lease is in doubt go first when Redis goes away meanwhile, so the room takes them in order")
    func doubtThenOutage() throws {
        let (cluster, owner, _, _) = try threeNodes()
        freezeDuringRenewal(cluster)
        cluster.run(2_300)
        owner.input(50, t: 2_400, "pointerDown", #""x":100,"y":600"#)
        cluster.run(16)
        #expect(cluster["n1"].cluster.links["lobby"]?.inputsInDoubt.count == 1)
        // With Redis away the owner serves its viewers again (nobody can take the room).
        cluster.broker.goDown()
        owner.input(51, t: 2_450, "pointerUp", #""x":100,"y":600"#)
        cluster.run(16)
        #expect(cluster["n1"].cluster.links["lobby"]?.inputsInDoubt.isEmpty == true)
        // Down then up: taken the other way round, the up would be refused and the down hold the room.
        #expect(refusal(of: 50, in: owner) == nil)
        #expect(refusal(of: 51, in: owner) == nil)
        let drivers = owner.messages.compactMap { if case .presence(_, let driver, _, _, _) = $0 { driver ?? "none" } else { nil } }
        #expect(drivers.suffix(2) == ["n1/v1", "none"], "\(drivers)")
    }
}
