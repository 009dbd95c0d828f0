import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// Sharing (docs/protocol.md, "Sharing") needs the node that runs the room; a cluster node
/// refuses it, as documented, and keeps the connection.
@Suite("Sharing on a cluster node")
@RoomActor struct ClusterSharingTests {
    @Test("a sharing message on a cluster node is refused as unsupported, and the viewer still drives")
    func refusedAsUnsupported() throws {
        let cluster = ClusterHarness(nodes: ["n1"])
        let viewer = cluster["n1"].viewer(joining: "lobby")
        try #require(cluster.run(upTo: 1_000) { viewer.snapshots == 1 })
        for message in [#"{"type":"ask"}"#, #"{"type":"view","mode":"explore"}"#, #"{"type":"callBack"}"#] {
            cluster["n1"].service.receivedText(message.utf8, from: viewer.connection)
        }
        let refusals = viewer.messages.compactMap { if case .refused(nil, let code, _) = $0 { code } else { nil } }
        #expect(refusals == ["unsupported", "unsupported", "unsupported"])
        viewer.input(1, t: 0, "wheel", #""dx":0,"dy":40,"mode":"pixel""#)
        try #require(cluster.run(upTo: 1_000) { viewer.sequence.contains { $0.kind == "frame" } })
        #expect(viewer.sink.closedWith == nil)
    }
}
