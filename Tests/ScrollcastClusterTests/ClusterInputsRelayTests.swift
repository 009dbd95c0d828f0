import ScrollEngine
import ScrollReplica
import ScrollWire
import ScrollcastRooms
import ScrollcastServerTesting
import Testing
@testable import ScrollcastCluster

/// The inputs stream across nodes (docs/cluster.md, "The inputs stream across nodes"), whole
/// nodes on the in-memory broker and the manual scheduler: the owner publishes batches and beats,
/// not frames, while its remote viewers all take inputs; a native replica on each follower's
/// viewer, restored from its snapshot's state and fed only the relayed batches, matches every
/// beat; keyframes are answered by the owner; a takeover gives a fresh snapshot and a fenced
/// owner's batches reach nobody.
@Suite("Inputs stream across nodes")
@RoomActor struct ClusterInputsRelayTests {
    /// What a replica following one viewer's messages found (`InputsStreamTests`' client, for
    /// the harness's scene).
    @RoomActor struct StreamCheck {
        var replicaSnapshots = 0
        var frameSnapshots = 0
        var batches = 0
        var beatsChecked = 0
        var frames = 0
        var resumedFrom: [UInt64] = []
        var problems: [String] = []

        init(_ viewer: TestViewer, version: WireVersion) throws {
            var replica: EngineReplica?
            var changes: UInt64 = 0
            let messages = version == .v1 ? try viewer.sink.v1Messages() : try viewer.sink.v2Common()
            for message in messages {
                switch message {
                case .snapshot(let snapshot):
                    guard let start = snapshot.replica else { frameSnapshots += 1; replica = nil; continue }
                    replicaSnapshots += 1
                    var fresh = EngineReplica(sceneNamed: snapshot.sceneName, configuration: TestNode.smallScene())
                    try fresh.restore(state: start.state)
                    fresh.nameInput(start.input)
                    replica = fresh
                    changes = start.changes
                case .resumed(let resumed):
                    resumedFrom.append(resumed.from)
                case .batch(let batch):
                    batches += 1
                    guard batch.firstChange == changes + 1 else {
                        problems.append("batch from \(batch.firstChange) after \(changes)")
                        continue
                    }
                    for entry in batch.applied {
                        if case .rejected(let why) = replica?.apply(entry) { problems.append("change refused: \(why)") }
                    }
                    changes = batch.changes
                case .beat(let beat):
                    guard let hash = beat.hash, let replica else { continue }
                    if replica.frameHash(at: beat.time) != hash { problems.append("beat at \(beat.time) disagrees") }
                    beatsChecked += 1
                case .frame:
                    frames += 1
                default:
                    break
                }
            }
        }
    }

    /// Envelopes published on the broker, decoded.
    static func envelopes(_ cluster: ClusterHarness) -> [RelayEnvelope] {
        cluster.broker.published.compactMap { RelayEnvelope.decode($0.payload) }
    }

    /// n1 runs "lobby" with a frames viewer of its own; n2 and n3 each have a viewer of the
    /// inputs stream speaking `version`.
    func threeNodes(_ version: WireVersion) throws -> (ClusterHarness, TestViewer, TestViewer, TestViewer) {
        let cluster = ClusterHarness(nodes: ["n1", "n2", "n3"])
        let owner = cluster["n1"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { owner.snapshots == 1 })
        let second = cluster["n2"].streamViewer(joining: "lobby", version: version)
        let third = cluster["n3"].streamViewer(joining: "lobby", version: version)
        try #require(cluster.run(upTo: 1_000) {
            (try? StreamCheck(second, version: version).replicaSnapshots == 1) == true
                && (try? StreamCheck(third, version: version).replicaSnapshots == 1) == true
        })
        return (cluster, owner, second, third)
    }

    /// Each of `viewers` got `snapshots` snapshots with the engine's state and none without,
    /// batches, at least `beats` beats all matching its replica, and no frame.
    func expectAgreement(_ viewers: [TestViewer], version: WireVersion, beats: Int, snapshots: Int) throws {
        for viewer in viewers {
            let check = try StreamCheck(viewer, version: version)
            #expect(check.problems.isEmpty, "\(check.problems.prefix(3))")
            #expect(check.frames == 0 && check.frameSnapshots == 0 && check.replicaSnapshots == snapshots)
            #expect(check.batches > 0 && check.beatsChecked >= beats, "batches \(check.batches), beats \(check.beatsChecked)")
        }
    }

    /// n1, the owner, dies; another node holds the lease within a second.
    func killOwner(_ cluster: ClusterHarness) throws {
        cluster.broker.kill("n1")
        try #require(cluster.run(upTo: 1_000) { cluster.broker.lease(of: "lobby").map { $0.node != "n1" } == true })
    }

    @Test("remote viewers that all take inputs get batches and beats, not frames: every beat matches their replica",
          arguments: [WireVersion.v1, .v2])
    func relay(version: WireVersion) throws {
        let (cluster, owner, driver, watcher) = try threeNodes(version)
        // The inputs-stream viewer on n2 drives: its input crosses to the owner, the changes come back.
        driver.fling(from: 1, harness: cluster)
        cluster.run(1_500)
        try expectAgreement([driver, watcher], version: version, beats: 3, snapshots: 1)
        #expect(owner.sequence.filter { $0.kind == "frame" }.count > 5, "the owner's own frames viewer gets frames")
        #expect(!Self.envelopes(cluster).contains { $0.kind == .frame }, "a frame was published")
        #expect((cluster["n1"].counter(ClusterMetrics.Name.framesPublished) ?? 0) == 0)
        #expect((cluster["n1"].counter(ClusterMetrics.Name.streamMessagesPublished) ?? 0) > 0)
    }

    @Test("a remote frames viewer brings frames back on the broker; the inputs viewers beside it still get none")
    func mixed() throws {
        let (cluster, _, driver, watcher) = try threeNodes(.v2)
        let framesViewer = cluster["n3"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { framesViewer.snapshots == 1 })
        driver.fling(from: 1, harness: cluster)
        cluster.run(1_000)
        #expect(framesViewer.sequence.filter { $0.kind == "frame" }.count > 5)
        #expect(Self.envelopes(cluster).contains { $0.kind == .frame })
        try expectAgreement([driver, watcher], version: .v2, beats: 3, snapshots: 1)
        // Gone again: the frames stop going to the broker.
        cluster["n3"].service.closed(framesViewer.connection)
        cluster.run(1_200)
        let published = Self.envelopes(cluster).filter { $0.kind == .frame }.count
        let batches = try StreamCheck(driver, version: .v2).batches
        driver.fling(from: 20, at: 3_000, harness: cluster)
        cluster.run(1_000)
        #expect(try StreamCheck(driver, version: .v2).batches > batches, "the room moved again")
        #expect(Self.envelopes(cluster).filter { $0.kind == .frame }.count == published)
    }

    @Test("a keyframe on a follower is answered by the owner (counted there); the third moves the viewer to frames")
    func keyframe() throws {
        let (cluster, _, asker, _) = try threeNodes(.v1)
        asker.keyframe()
        try #require(cluster.run(upTo: 1_000) { (try? StreamCheck(asker, version: .v1).replicaSnapshots == 2) == true })
        #expect(cluster["n1"].counter(ServerMetrics.Name.keyframes) == 1)
        #expect(asker.sink.closedWith == nil)
        asker.keyframe()
        asker.keyframe()
        try #require(cluster.run(upTo: 1_000) { (try? StreamCheck(asker, version: .v1).frameSnapshots == 1) == true })
        #expect(cluster["n1"].counter(ServerMetrics.Name.inputsStreamFallbacks) == 1)
        // Its node now delivers it frames, and its rosters say so (a roster or two later it still gets them).
        cluster.run(2_500)
        asker.fling(from: 1, harness: cluster)
        cluster.run(500)
        #expect(try StreamCheck(asker, version: .v1).frames > 5)
        #expect(try StreamCheck(asker, version: .v1).frameSnapshots == 1)
        // A frames viewer asking for a keyframe on a follower is a protocol error, as on one node.
        let plain = cluster["n2"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { plain.snapshots == 1 })
        plain.keyframe()
        #expect(plain.sink.closedWith?.code == .policyViolation)
    }

    @Test("takeover: the owner dies; each inputs viewer gets a fresh snapshot from the new owner and its beats match after")
    func takeover() throws {
        let (cluster, _, driver, watcher) = try threeNodes(.v2)
        driver.fling(from: 1, harness: cluster)
        cluster.run(100)
        try killOwner(cluster)
        try #require(cluster.run(upTo: 2_000) {
            [driver, watcher].allSatisfy { (try? StreamCheck($0, version: .v2).replicaSnapshots == 2) == true }
        })
        driver.fling(from: 20, at: 2_000, harness: cluster)
        cluster.run(1_500)
        try expectAgreement([driver, watcher], version: .v2, beats: 6, snapshots: 2)
    }

    @Test("fencing: a stale owner's batches and beats are refused by the broker; the inputs viewers' replicas never disagree")
    func fencing() throws {
        let (cluster, owner, driver, watcher) = try threeNodes(.v1)
        let stale = try #require(cluster.broker.lease(of: "lobby"))
        try killOwner(cluster)
        cluster.broker.revive("n1")
        // n1's own viewer drives its stale room: what it publishes of it is fenced, and it steps down.
        owner.fling(from: 1, harness: cluster)
        try #require(cluster.run(upTo: 2_000) { cluster["n1"].link("lobby")?.isFollower == true })
        #expect(cluster.broker.fencedPublishes >= 1)
        driver.fling(from: 40, at: 4_000, harness: cluster)
        cluster.run(1_000)
        let envelopes = Self.envelopes(cluster)
        let firstOfNew = try #require(envelopes.firstIndex { $0.epoch > stale.epoch })
        #expect(!envelopes[firstOfNew...].contains { $0.epoch == stale.epoch })
        try expectAgreement([driver, watcher], version: .v1, beats: 3, snapshots: 2)
    }

    @Test("resume on a follower by change count: the missed changes in one batch, no snapshot")
    func resume() throws {
        let (cluster, _, driver, watcher) = try threeNodes(.v1)
        driver.fling(from: 1, harness: cluster)
        cluster.run(1_000)
        let snapshot = try #require(watcher.messages.compactMap { if case .snapshot(let s) = $0 { s } else { nil } }.first)
        let held = try #require(watcher.messages.compactMap { if case .batch(let b) = $0 { b.changes } else { nil } }.last)
        let life = try #require(snapshot.resumePoint?.life)
        cluster["n3"].service.closed(watcher.connection)
        driver.fling(from: 20, at: 2_000, harness: cluster)
        cluster.run(500)
        let back = cluster["n3"].streamViewer(joining: "lobby", version: .v1,
                                              extra: #","resume":{"life":\#(life),"seq":\#(held),"moves":0}"#)
        try #require(cluster.run(upTo: 1_000) { back.messages.contains { if case .batch = $0 { true } else { false } } },
                     "\(back.sink.received.prefix(4).map { String(decoding: $0.bytes, as: UTF8.self).prefix(120) })")
        #expect(!back.messages.contains { if case .snapshot = $0 { true } else { false } })
        guard case .resumed(let resumed)? = back.messages.first else {
            Issue.record("not resumed: \(back.messages.prefix(2))")
            return
        }
        #expect(resumed.from == held && resumed.seq > held)
    }
}

extension TestNode {
    /// A viewer of the inputs stream (this build's engine) connected here, speaking `version`,
    /// joining `room`; `extra` is more of the join's JSON, e.g. `,"resume":{…}`.
    func streamViewer(joining room: String, version: WireVersion, extra: String = #","resumable":true"#) -> TestViewer {
        let connection = ViewerID(rawValue: Self.streamConnections)
        Self.streamConnections += 1
        let sink = RecordingViewerSink()
        service.opened(connection, sink: sink, subprotocol: version == .v1 ? nil : version.subprotocol)
        service.receivedText(
            #"{"type":"join","room":"\#(room)","stream":"inputs","engine":\#(EngineVersion.current)\#(extra)}"#.utf8,
            from: connection)
        return TestViewer(connection: connection, sink: sink, node: self)
    }

    /// Connection ids of stream viewers: far from those `viewer(joining:)` numbers from 1.
    private static var streamConnections: UInt64 = 1_000_000
}

extension TestViewer {
    /// `fling(from:harness:)` with client times from `t0` (a later gesture of the same page).
    func fling(from first: UInt64, at t0: Double, harness: ClusterHarness) {
        input(first, t: t0, "pointerDown", #""x":100,"y":600"#)
        for step in 1...5 {
            harness.run(16)
            input(first + UInt64(step), t: t0 + Double(step) * 16, "pointerMove", #""x":100,"y":\#(600 - step * 40)"#)
        }
        harness.run(16)
        input(first + 6, t: t0 + 96, "pointerUp", #""x":100,"y":380"#)
    }

    /// Asks for a keyframe.
    func keyframe() {
        node.service.receivedText(#"{"type":"keyframe"}"#.utf8, from: connection)
    }
}
