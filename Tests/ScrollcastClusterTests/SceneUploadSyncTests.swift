import Foundation
import Logging
import Redis
import RedisTesting
import ScrollcastRooms
import ScrollcastServerTesting
import Testing
@testable import ScrollcastCluster

/// Uploaded scenes in a cluster's Redis (docs/cluster.md, "Uploaded scenes"), against a real
/// redis-server: an upload saved by one node reaches another node's catalogue with its images,
/// announced or not (a node that starts later reads everything kept); the same upload is kept
/// once; the cluster's byte limit counts every node's uploads.
@Suite("Uploaded scenes in Redis")
struct SceneUploadSyncTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenes")

    /// The example trail-guide scene as the route keeps it (its name made up: only the store's
    /// round trip and the check on reading matter here).
    static func trail(name: String = "u-0123456789abcdef01234567") throws -> StoredSceneUpload {
        func file(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: examples.appendingPathComponent(name))) }
        return StoredSceneUpload(name: name, fileName: "trail-guide.json", scene: try file("trail-guide.json"),
                                 images: ["trail-sun.webp": try file("trail-sun.webp"),
                                          "trail-mountains.png": try file("trail-mountains.png")])
    }

    /// A node's sync into a catalogue of its own.
    final class Node: Sendable {
        let uploads = UploadedScenes()
        let sync: ClusterSceneSync
        init(_ redis: RedisTestServer, id: String, maxBytes: Int = SceneUploadLimits.maxServerBytes) {
            sync = ClusterSceneSync(address: redis.address(), configuration: ClusterConfiguration(nodeID: id),
                                    maxBytes: maxBytes, uploads: uploads, logger: Logger(label: "test"))
            sync.start()
        }
        deinit { sync.close() }

        /// Saves once the store's link is up (before, a save fails at once: the route answers 503).
        func save(_ upload: StoredSceneUpload) throws {
            #expect(waitUntil { self.sync.store.isConnected })
            try sync.store.saveUpload(upload)
        }
    }

    /// Polls `condition` every 5 ms for up to 10 s.
    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !condition() {
            if Date() > deadline { return false }
            usleep(5_000)
        }
        return true
    }

    @Test func anUploadSavedOnOneNodeReachesAnotherWithItsImages() throws {
        let redis = try RedisTestServer()
        let (a, b) = (Node(redis, id: "a"), Node(redis, id: "b"))
        let upload = try Self.trail()
        // B is subscribed before A saves, so it learns of the upload by the announcement.
        #expect(Self.waitUntil { b.sync.isSubscribed })
        try a.save(upload)
        #expect(Self.waitUntil { b.uploads.contains(upload.name) })
        #expect(b.uploads.sceneFile(named: upload.name) == upload.scene)
        #expect(b.uploads.totalBytes == upload.byteCount)
        let mountains = try #require(upload.images["trail-mountains.png"])
        let catalogue = SceneCatalogue(entries: SceneCatalogue.standard.entries, defaultName: "demo", uploads: b.uploads)
        #expect(catalogue.asset(atPath: "/scene-images/\(upload.name)/layer-1.png")?.bytes == mountains)
        #expect(catalogue.configuration(named: upload.name) != nil)
        // Everything kept comes back whole from Redis.
        #expect(try b.sync.store.loadUploads() == [upload])
    }

    @Test func aNodeThatMissedTheAnnouncementReadsEveryUploadKeptWhenItSubscribes() throws {
        let redis = try RedisTestServer()
        let a = Node(redis, id: "a")
        let (first, second) = (try Self.trail(name: "u-000000000000000000000001"), try Self.trail(name: "u-000000000000000000000002"))
        try a.save(first)
        try a.save(second)
        let late = Node(redis, id: "late")
        #expect(Self.waitUntil { late.uploads.count == 2 })
        #expect(late.uploads.contains(first.name) && late.uploads.contains(second.name))
    }

    @Test func theSameUploadIsKeptOnceAndTheClusterLimitCountsEveryNode() throws {
        let redis = try RedisTestServer()
        let upload = try Self.trail()
        // Room for exactly one upload, for the whole cluster.
        let (a, b) = (Node(redis, id: "a", maxBytes: upload.byteCount), Node(redis, id: "b", maxBytes: upload.byteCount))
        try a.save(upload)
        try b.save(upload)   // the same upload again: nothing more is kept
        #expect(try a.sync.store.names() == [upload.name])
        let other = try Self.trail(name: "u-000000000000000000000003")
        #expect(throws: SceneUploadStoreFull(limit: upload.byteCount)) { try b.save(other) }
        #expect(try a.sync.store.names() == [upload.name])
    }

    @Test @RoomActor func anUploadPastTheClusterLimitIsAnswered507ByTheRoute() throws {
        let redis = try RedisTestServer()
        let kept = try Self.trail()
        let a = Node(redis, id: "a", maxBytes: kept.byteCount)
        try a.save(kept)
        // Node b's own count (its catalogue, empty) is far from its limit; Redis's is at it.
        let b = Node(redis, id: "b", maxBytes: kept.byteCount)
        #expect(Self.waitUntil { b.sync.store.isConnected })
        let scenes = SceneCatalogue(entries: SceneCatalogue.standard.entries, defaultName: "demo", uploads: UploadedScenes())
        let route = SceneUploadRoute(scenes: scenes, store: b.sync.store, limits: SceneUploadLimits(), clock: ManualRoomClock(),
                                     logger: Logger(label: "test"))
        var body: [UInt8] = []
        for (field, name, bytes) in [("scene", kept.fileName, kept.scene)] + kept.images.map({ ("image", $0.key, $0.value) }) {
            body += Array("--B0\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(name)\"\r\n\r\n".utf8) + bytes + [13, 10]
        }
        body += Array("--B0--\r\n".utf8)
        let reply = route.upload(contentType: "multipart/form-data; boundary=B0", body: body, client: "10.0.0.1")
        #expect(reply.status == 507)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("uploaded scenes and is full"))
        #expect(try b.sync.store.names() == [kept.name] && scenes.uploads.count == 0, "nothing more kept or offered")
    }

    /// A node's sync whose command link is up and has read what Redis kept then, but that never
    /// subscribes: what is saved afterwards only `ensure` brings in.
    static func unsubscribedSync(_ redis: RedisTestServer, id: String, into uploads: UploadedScenes) throws -> ClusterSceneSync {
        let sync = ClusterSceneSync(address: redis.address(), configuration: ClusterConfiguration(nodeID: id),
                                    maxBytes: SceneUploadLimits.maxServerBytes, uploads: uploads, logger: Logger(label: "test"))
        sync.store.start()
        try #require(waitUntil { sync.store.isConnected })
        // The read the link's coming up started is done once the worker answers this.
        let drained = Collected<Bool>()
        sync.ensure("u-none") { drained.append(true) }
        try #require(drained.wait { !$0.isEmpty })
        return sync
    }

    @Test func ensureReadsAMissingSceneBeforeItAnswers() throws {
        let redis = try RedisTestServer()
        let a = Node(redis, id: "a")
        let upload = try Self.trail()
        let uploads = UploadedScenes()
        let sync = try Self.unsubscribedSync(redis, id: "b", into: uploads)
        defer { sync.close() }
        try a.save(upload)
        #expect(!uploads.contains(upload.name))
        let answered = Collected<Bool>()
        sync.ensure(upload.name) { answered.append(uploads.contains(upload.name)) }
        sync.ensure("u-ffffffffffffffffffffffff") { answered.append(uploads.count == 1) }
        #expect(answered.wait { $0.count == 2 })
        #expect(answered.all == [true, true])
    }
}
