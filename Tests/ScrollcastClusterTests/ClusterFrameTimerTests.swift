import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// Another node's input and viewers reach the room run here through the link, and the room's
/// own report of its deadline sets the frame timer: the link tells nobody.
@Suite("Frame timer on a cluster's owner")
@RoomActor struct ClusterFrameTimerTests {
    @Test("a remote viewer's fling animates on the owner to rest, and remote joins are announced, by the timers alone")
    func remoteInputAndViewers() throws {
        let cluster = ClusterHarness(nodes: ["n1", "n2"])
        let owner = cluster["n1"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { owner.snapshots == 1 })
        let remote = cluster["n2"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { remote.snapshots == 1 })
        // Joined within the presence interval of the first: announced when the room's own
        // deferred presence falls due.
        let second = cluster["n2"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 2_000) { second.snapshots == 1 })
        try #require(cluster.run(upTo: 2_000) {
            owner.messages.contains { if case .presence(let viewers, _, _, _, _) = $0 { viewers == 3 } else { false } }
        })

        remote.fling(from: 1, harness: cluster)
        let room = try #require(cluster["n1"].service.registry.room(named: "lobby"))
        let framesAtRelease = owner.sequence.filter { $0.kind == "frame" }.count
        cluster.run(300)
        let animated = owner.sequence.filter { $0.kind == "frame" }.count - framesAtRelease
        #expect(animated >= 12, "the owner animates the remote fling: \(animated) frames in 300 ms")
        try #require(cluster.run(upTo: 10_000) { room.nextTickDeadline == nil })
        let last = owner.messages.last { if case .frame = $0 { true } else { false } }
        guard case .frame(let frame) = last else {
            Issue.record("no frame")
            return
        }
        #expect(!frame.animating, "the fling came to rest")
        #expect(cluster["n1"].service.registry.frameTimerDeadline == nil)
    }
}
