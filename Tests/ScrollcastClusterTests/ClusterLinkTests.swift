import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// Whole nodes (real rooms, hubs and links) on the in-memory broker and the manual scheduler:
/// the link's state machine through its driver, with the faults the e2e tests cause on real
/// processes (a node's death, a stale owner, a subscription gap, the broker away).
@Suite("Cluster links on the in-memory backend")
@RoomActor struct ClusterLinkTests {
    /// Node 1 runs "lobby" with a viewer; node 2 follows it with its own viewer.
    func twoNodes(_ ids: [String] = ["n1", "n2"]) throws -> (ClusterHarness, TestViewer, TestViewer) {
        let cluster = ClusterHarness(nodes: ids)
        let owner = cluster["n1"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { owner.snapshots == 1 })
        #expect(cluster["n1"].link("lobby")?.isOwner == true)
        let remote = cluster["n2"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { remote.snapshots == 1 })
        #expect(cluster["n2"].link("lobby")?.isFollower == true)
        return (cluster, owner, remote)
    }

    @Test("a follower's viewer drives the room: its input reaches the owner, and both viewers get the same frames")
    func relay() throws {
        let (cluster, owner, remote) = try twoNodes()
        remote.fling(from: 1, harness: cluster)
        try #require(cluster.run(upTo: 2_000) { remote.sequence.count > 5 })
        cluster.run(200)
        let ownerFrames = owner.sequence.filter { $0.kind == "frame" }.map(\.seq)
        let remoteFrames = remote.sequence.filter { $0.kind == "frame" }.map(\.seq)
        #expect(!remoteFrames.isEmpty)
        #expect(Set(remoteFrames).isSubset(of: Set(ownerFrames)))
        #expect(remoteFrames == remoteFrames.sorted())
    }

    @Test("takeover: the owner dies; the follower claims within a watch, runs the room at a higher epoch, seq keeps rising")
    func takeover() throws {
        let (cluster, _, remote) = try twoNodes()
        remote.fling(from: 1, harness: cluster)
        cluster.run(100)
        let before = remote.sequence.map(\.seq).max() ?? 0
        cluster.broker.kill("n1")
        try #require(cluster.run(upTo: 1_000) { cluster["n2"].link("lobby")?.isOwner == true })
        #expect(cluster.broker.lease(of: "lobby")?.node == "n2")
        #expect(cluster.broker.lease(of: "lobby")?.epoch == 2)
        #expect(cluster["n2"].counter(ClusterMetrics.Name.takeovers) == 1)
        // The viewer keeps its connection and gets the room from its own node now.
        remote.fling(from: 20, harness: cluster)
        try #require(cluster.run(upTo: 1_000) { (remote.sequence.last?.seq ?? 0) > before })
        let seqs = remote.sequence.map(\.seq)
        #expect(seqs == seqs.sorted(), "seq went back: \(seqs)")
    }

    @Test("fencing: another node takes the lease from a frozen owner; its next publish is refused and it steps down to follow")
    func fencing() throws {
        let (cluster, owner, remote) = try twoNodes(["n1", "n2", "n3"])
        let stale = try #require(cluster.broker.lease(of: "lobby"))
        // Node 3 takes the room while node 1 still thinks it runs it (its lease ran out, frozen).
        cluster.broker.kill("n1")
        try #require(cluster.run(upTo: 1_000) { cluster["n2"].link("lobby")?.isOwner == true })
        cluster.broker.revive("n1")
        // Node 1 publishes under its old lease (a frame of a fling): fenced, it steps down.
        owner.fling(from: 1, harness: cluster)
        try #require(cluster.run(upTo: 2_000) { cluster["n1"].link("lobby")?.isFollower == true })
        #expect(cluster["n1"].cluster.leases["lobby"] == nil)
        #expect(cluster.broker.fencedPublishes >= 1)
        #expect(cluster["n1"].counter(ClusterMetrics.Name.leaseLosses) == 1)
        #expect(cluster.broker.lease(of: "lobby")?.node == "n2")
        // Its viewer follows the new owner: a fresh snapshot, then only frames of the new owner.
        let mark = owner.sink.received.count
        try #require(cluster.run(upTo: 2_000) { owner.snapshots >= 2 })
        remote.fling(from: 40, harness: cluster)
        cluster.run(300)
        let after = owner.sink.received.dropFirst(mark).compactMap { try? ServerMessageDecoder.decode($0.bytes) }
        #expect(after.contains { if case .snapshot = $0 { true } else { false } })
        // Nothing node 1 published after the takeover got through: every envelope of its epoch
        // went out before node 2's first one.
        let envelopes = cluster.broker.published.compactMap { RelayEnvelope.decode($0.payload) }
        let firstOfNew = try #require(envelopes.firstIndex { $0.epoch > stale.epoch })
        #expect(!envelopes[firstOfNew...].contains { $0.epoch == stale.epoch })
        #expect(cluster["n1"].link("lobby").map { if case .follower(let f) = $0 { f.owner == "n2" } else { false } } == true)
    }

    @Test("resync: after the pub/sub link drops and comes back, the follower's viewer gets a fresh snapshot and nothing older")
    func resync() throws {
        let (cluster, _, remote) = try twoNodes()
        remote.fling(from: 1, harness: cluster)
        cluster.run(100)
        cluster["n2"].backend.dropSubscriber()
        cluster.run(50)
        let mark = remote.sink.received.count
        let lastBefore = remote.sequence.map(\.seq).max() ?? 0
        cluster["n2"].backend.restoreSubscriber()
        try #require(cluster.run(upTo: 2_000) { remote.snapshots == 2 })
        remote.fling(from: 20, harness: cluster)
        cluster.run(300)
        let after = remote.sink.received.dropFirst(mark).compactMap { try? ServerMessageDecoder.decode($0.bytes) }
        guard case .snapshot(let snapshot)? = after.first(where: { if case .snapshot = $0 { true } else if case .frame = $0 { true } else { false } }) else {
            Issue.record("the first message after the gap is not a snapshot: \(after.prefix(3))")
            return
        }
        #expect(snapshot.frame.seq >= lastBefore)
        let frames = after.compactMap { if case .frame(let f) = $0 { f.seq } else { nil } }
        #expect(frames.allSatisfy { $0 >= snapshot.frame.seq }, "a frame older than the snapshot: \(frames)")
    }

    @Test("a snapshot lost on the way (published while the owner's command link was down) is asked for again by the next roster")
    func lostSnapshot() throws {
        let (cluster, _, remote) = try twoNodes()
        // The first snapshot for the follower's viewer after its resubscription is lost, as the
        // owner's publish is when its pub/sub link comes back before its command link.
        var lost = 0
        cluster.broker.losesPublish = { payload in
            guard lost == 0, let envelope = RelayEnvelope.decode(payload), case .viewer = envelope.audience,
                  case .snapshot? = envelope.v1.flatMap({ try? ServerMessageDecoder.decode($0) }) else { return false }
            lost += 1
            return true
        }
        cluster["n2"].backend.dropSubscriber()
        cluster.run(50)
        cluster["n2"].backend.restoreSubscriber()
        try #require(cluster.run(upTo: 500) { lost == 1 })
        #expect(remote.snapshots == 1, "the lost snapshot arrived anyway")
        // Without asking again the viewer would wait for good (the owner answers a new generation
        // only): at the next roster after a period it asks, and the snapshot comes.
        try #require(cluster.run(upTo: 2_500) { remote.snapshots == 2 })
        #expect(cluster["n2"].counter(ClusterMetrics.Name.snapshotsAskedAgain) == 1)
        remote.fling(from: 20, harness: cluster)
        try #require(cluster.run(upTo: 1_000) { remote.sequence.last?.kind == "frame" })
        // Once it came, nothing is asked again.
        cluster.run(3_000)
        #expect(remote.snapshots == 2)
        #expect(cluster["n2"].counter(ClusterMetrics.Name.snapshotsAskedAgain) == 1)
    }

    @Test("outage: the owner keeps serving its viewer, moves and a follower's inputs are refused unavailable, new rooms get 1013, all recovers")
    func outage() throws {
        let (cluster, owner, remote) = try twoNodes()
        cluster.broker.goDown()
        cluster.run(50)
        let mark = owner.sequence.count
        owner.fling(from: 1, harness: cluster)
        cluster.run(200)
        #expect(owner.sequence.count > mark, "the owner's own viewer got no frames during the outage")
        // Row moves cannot be stored: a long press (which lifts a row) is refused unavailable.
        owner.input(50, t: 400, "longPressBegan", #""x":150,"y":300"#)
        cluster.run(16)
        #expect(owner.messages.contains { if case .refused(50, "unavailable", _) = $0 { true } else { false } })
        // The follower's viewer cannot drive: its input is refused unavailable.
        remote.input(90, t: 500, "pointerDown", #""x":100,"y":600"#)
        cluster.run(16)
        #expect(remote.messages.contains { if case .refused(90, "unavailable", _) = $0 { true } else { false } })
        // A room nobody holds cannot be placed: 1013.
        let newcomer = cluster["n2"].viewer(joining: "elsewhere")
        try #require(cluster.run(upTo: 1_000) { newcomer.sink.closedWith != nil })
        #expect(newcomer.sink.closedWith?.code == .tryAgainLater)
        // Back: the follower's viewer is served again, from a fresh snapshot.
        cluster.broker.comeBack()
        try #require(cluster.run(upTo: 5_000) { remote.snapshots >= 2 })
        #expect(cluster.broker.lease(of: "lobby")?.node == "n1")
        let joined = cluster["n2"].viewer(joining: "elsewhere")
        try #require(cluster.run(upTo: 1_000) { joined.snapshots == 1 })
        // And the owner's store takes moves again.
        owner.input(60, t: 9_000, "longPressBegan", #""x":150,"y":300"#)
        owner.input(61, t: 9_010, "longPressCancel")
        cluster.run(16)
        #expect(!owner.messages.contains { if case .refused(60, _, _) = $0 { true } else { false } })
    }
}
