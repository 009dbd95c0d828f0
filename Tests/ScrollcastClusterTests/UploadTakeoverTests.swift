import Foundation
import Logging
import RedisTesting
import ScrollWire
import ScrollcastRooms
import Testing
@testable import ScrollcastCluster

/// A node taking over a room whose scene was uploaded to another node and that it has not read
/// yet (docs/cluster.md, "Uploaded scenes"): whole nodes on the in-memory broker and the manual
/// scheduler, the uploads in a real redis-server. The node reads the upload before it restores
/// the room, so the room keeps its scene; a node that cannot read it does not get the room back.
@Suite("Uploaded scenes at a takeover")
@RoomActor struct UploadTakeoverTests {
    /// n1 runs room "r" of an upload n1 took (kept in `redis`); n2 follows it with a viewer, its
    /// own catalogue without the upload. Returns the harness, n2's viewer and the upload.
    /// With `withSync`, n2 has a sync that never subscribes (SceneUploadSyncTests.unsubscribedSync),
    /// made before the upload was saved: only the takeover's read can bring the scene in.
    func roomOfAnUploadOnN1(redis: RedisTestServer, withSync: Bool) throws
        -> (ClusterHarness, TestViewer, StoredSceneUpload) {
        let upload = try SceneUploadSyncTests.trail()
        let cluster = ClusterHarness(nodes: ["n1", "n2"])
        if withSync {
            cluster["n2"].cluster.sceneSync = try SceneUploadSyncTests.unsubscribedSync(redis, id: "n2", into: cluster["n2"].scenes.uploads)
        }
        let saver = RedisSceneUploadStore(address: redis.address(), configuration: ClusterConfiguration(nodeID: "n1"))
        saver.start()
        defer { saver.close() }
        try #require(SceneUploadSyncTests.waitUntil { saver.isConnected })
        try saver.saveUpload(upload)
        #expect(SceneUploadRoute.restore(upload, into: cluster["n1"].scenes.uploads) == nil)
        let owner = cluster["n1"].viewer(joining: "r", scene: upload.name)
        try #require(cluster.run(upTo: 1_000) { owner.snapshots == 1 })
        let remote = cluster["n2"].viewer(joining: "r")
        try #require(cluster.run(upTo: 1_000) { remote.snapshots == 1 })
        #expect(Self.sceneNames(remote) == [upload.name])
        #expect(!cluster["n2"].scenes.contains(upload.name), "n2 has not read the upload")
        return (cluster, remote, upload)
    }

    static func sceneNames(_ viewer: TestViewer) -> [String] {
        viewer.messages.compactMap { if case .snapshot(let s) = $0 { s.sceneName } else { nil } }
    }

    /// Runs the cluster a frame at a time, letting real time pass for Redis's replies, until
    /// `condition` holds (10 s at most).
    func run(_ cluster: ClusterHarness, until condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !condition() {
            if Date() > deadline { return false }
            cluster.run(16)
            usleep(2_000)
        }
        return true
    }

    @Test func theNewOwnerReadsTheUploadFirstAndTheRoomKeepsItsScene() throws {
        let redis = try RedisTestServer()
        let (cluster, remote, upload) = try roomOfAnUploadOnN1(redis: redis, withSync: true)
        defer { cluster["n2"].cluster.sceneSync?.close() }
        cluster.broker.kill("n1")
        try #require(run(cluster) { cluster["n2"].link("r")?.isOwner == true && remote.snapshots == 2 })
        #expect(cluster["n2"].scenes.contains(upload.name))
        #expect(cluster["n2"].service.registry.room(named: "r")?.sceneName == upload.name)
        #expect(Self.sceneNames(remote) == [upload.name, upload.name])
        #expect(remote.sink.closedWith == nil)
    }

    @Test func aNewOwnerThatCannotReadTheUploadDoesNotGetTheRoomBack() throws {
        // The known-bad case: without the read, the room cannot be restored with its scene.
        let redis = try RedisTestServer()
        let (cluster, remote, upload) = try roomOfAnUploadOnN1(redis: redis, withSync: false)
        cluster.broker.kill("n1")
        _ = run(cluster) { cluster["n2"].link("r")?.isOwner == true || remote.sink.closedWith != nil }
        #expect(cluster["n2"].service.registry.room(named: "r")?.sceneName != upload.name)
        #expect(Self.sceneNames(remote) == [upload.name], "no snapshot of the room's scene from n2")
        #expect(remote.sink.closedWith == CloseReason(.policyViolation, "unknown scene '\(upload.name)'"))
    }
}
