import Foundation
import Logging
import Testing
import ScrollcastRooms
import ScrollcastServerTesting

/// `POST /scenes` in the room layer: the example trail-guide scene uploaded, refused for each
/// limit with its status, kept in the store, and read back into a fresh catalogue.
@Suite("Scene uploads")
@RoomActor struct SceneUploadRouteTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenes")
    let clock = ManualRoomClock()
    let store = InMemorySceneUploadStore()
    let scenes = SceneCatalogue(entries: SceneCatalogue.standard.entries, defaultName: "demo")

    private func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.examples.appendingPathComponent(name)))
    }

    private func form(scene: (String, [UInt8]), images: [(String, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (field, (name, bytes)) in [("scene", scene)] + images.map({ ("image", $0) }) {
            body += Array("--B0\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(name)\"\r\n\r\n".utf8) + bytes + [13, 10]
        }
        return body + Array("--B0--\r\n".utf8)
    }

    private func trail() throws -> [UInt8] {
        form(scene: ("trail-guide.json", try file("trail-guide.json")),
             images: [("trail-sun.webp", try file("trail-sun.webp")), ("trail-mountains.png", try file("trail-mountains.png"))])
    }

    private func route(_ limits: SceneUploadLimits = SceneUploadLimits(), store: SceneUploadStore? = nil) -> SceneUploadRoute {
        SceneUploadRoute(scenes: scenes, store: store ?? self.store, limits: limits, clock: clock, logger: Logger(label: "test"))
    }

    private func json(_ reply: HTTPReply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
    }

    private func firstMessage(_ reply: HTTPReply) throws -> String {
        let errors = try #require(try json(reply)["errors"] as? [[String: Any]])
        return try #require(errors.first?["message"] as? String)
    }

    @Test func aGoodUploadBecomesAStoredSceneWithItsImagesAtTheServersPaths() throws {
        let reply = route().upload(contentType: "multipart/form-data; boundary=B0", body: try trail(), client: "10.0.0.1")
        #expect(reply.status == 201)
        let answer = try json(reply)
        let name = try #require(answer["scene"] as? String)
        let room = try #require(answer["room"] as? String)
        #expect(answer["link"] as? String == "/?room=\(room)&scene=\(name)")
        #expect(scenes.contains(name) && scenes.scene(named: name) != nil)
        #expect(scenes.asset(atPath: "/scene-images/\(name)/layer-0.webp")?.contentType == "image/webp")
        let mountains = try file("trail-mountains.png")
        #expect(scenes.asset(atPath: "/scene-images/\(name)/layer-1.png")?.bytes == mountains)
        #expect(try store.loadUploads().map(\.name) == [name])
        let stored = try store.loadUploads()
        #expect(scenes.uploads.totalBytes == stored[0].byteCount)

        // The same upload names the same scene, and is not kept twice.
        let again = route().upload(contentType: "multipart/form-data; boundary=B0", body: try trail(), client: "10.0.0.2")
        let againName = try json(again)["scene"] as? String
        #expect(again.status == 200 && againName == name)
        #expect(try store.loadUploads().count == 1)

        // Read back into a fresh catalogue, as at a restart.
        let restarted = UploadedScenes()
        #expect(try SceneUploadRoute.restore(from: store, into: restarted).isEmpty)
        #expect(restarted.contains(name) && restarted.totalBytes == scenes.uploads.totalBytes)
    }

    @Test func aClientIsRefusedBeyondItsUploadsPerMinuteAndAllowedAgainLater() throws {
        let route = route(SceneUploadLimits(uploadsPerMinute: 2))
        let bad = form(scene: ("x.json", Array("{".utf8)), images: [])
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: bad, client: "10.0.0.1").status == 422)
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: bad, client: "10.0.0.1").status == 422)
        let limited = route.upload(contentType: "multipart/form-data; boundary=B0", body: bad, client: "10.0.0.1")
        #expect(limited.status == 429 && limited.headers.contains { $0 == ("retry-after", "60") })
        // Another client has its own allowance.
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: bad, client: "10.0.0.9").status == 422)
        clock.advance(by: 30_000)
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: bad, client: "10.0.0.1").status == 422)
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: bad, client: "10.0.0.1").status == 429)
    }

    @Test func eachLimitIsRefusedWithItsStatus() throws {
        let route = route(SceneUploadLimits(uploadsPerMinute: 100))
        let scene = ("trail-guide.json", try file("trail-guide.json"))
        let big = try file("trail-sun.webp") + [UInt8](repeating: 0, count: SceneUploadLimits.maxImageBytes)
        let tooBig = route.upload(contentType: "multipart/form-data; boundary=B0",
                                  body: form(scene: scene, images: [("trail-sun.webp", big)]), client: "a")
        #expect(tooBig.status == 413)
        let tooBigMessage = try firstMessage(tooBig)
        #expect(tooBigMessage.hasPrefix("image 'trail-sun.webp' is \(big.count) bytes; an image may have at most 8388608"))
        let many = (0...SceneUploadLimits.maxImages).map { ("i\($0).png", [UInt8(0)]) }
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: form(scene: scene, images: many), client: "a").status == 413)
        #expect(route.upload(contentType: "text/plain", body: [], client: "a").status == 415)
        #expect(route.upload(contentType: nil, body: [], client: "a").status == 415)
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: Array("--B0\r\n".utf8), client: "a").status == 400)
        let noScene = form(scene: ("x.png", [1]), images: [])  // a scene part that is not JSON: 422
        #expect(route.upload(contentType: "multipart/form-data; boundary=B0", body: noScene, client: "a").status == 422)
        let kept = try store.loadUploads()
        #expect(scenes.uploads.count == 0 && kept.isEmpty)
    }

    @Test func aFullServerAndAStoreThatCannotWriteRefuseAndKeepNothing() throws {
        let full = route(SceneUploadLimits(maxServerBytes: 1000))
        let reply = full.upload(contentType: "multipart/form-data; boundary=B0", body: try trail(), client: "a")
        let message = try firstMessage(reply)
        #expect(reply.status == 507 && message.contains("is full"))
        let broken = route(store: FailingStore())
        #expect(broken.upload(contentType: "multipart/form-data; boundary=B0", body: try trail(), client: "b").status == 503)
        #expect(scenes.uploads.count == 0)
    }

    @Test func theSceneValidatesExactlyAsAFileWouldWithLinesInTheAnswer() throws {
        let text = "{\n  \"viewport\": 3\n}\n"
        let reply = route().upload(contentType: "multipart/form-data; boundary=B0",
                                   body: form(scene: ("mine.json", Array(text.utf8)), images: []), client: "a")
        #expect(reply.status == 422)
        let errors = try #require(try json(reply)["errors"] as? [[String: Any]])
        #expect(errors.allSatisfy { $0["file"] as? String == "mine.json" })
        #expect(errors.contains { $0["path"] as? String == "$.viewport" && $0["line"] as? Int == 2 })
    }
}

private final class FailingStore: SceneUploadStore, Sendable {
    struct Broken: Error {}
    func saveUpload(_ upload: StoredSceneUpload) throws { throw Broken() }
    func loadUploads() throws -> [StoredSceneUpload] { [] }
}
