import Testing
import ScrollEngine
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// Scenes added to the catalogue (`--scenes DIR`): listed by `GET /scenes`, their assets served
/// at exactly the paths their configuration names, rooms made with them by name.
@Suite("Scene assets")
@RoomActor struct SceneAssetTests {
    private static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]

    private static func withFeed() -> SceneCatalogue {
        let configuration = SceneConfiguration(
            background: BackgroundImage(image: "scene-images/feed/background.png", height: 2000),
            sections: [TableSection(title: "A", rows: [TableRow(id: 0, title: "one")])])
        return Harness.catalogue(demo: Harness.smallScene).adding([
            .init(name: "feed", assets: [SceneAsset(path: "scene-images/feed/background.png", contentType: "image/png", bytes: png)],
                  build: { configuration })])
    }

    @Test func theListNamesEveryScene() {
        let h = Harness(scenes: Self.withFeed())
        let reply = h.service.respond(method: "GET", path: "/scenes")
        #expect(reply?.status == 200 && reply?.contentType == "application/json")
        #expect(reply.map { String(decoding: $0.body, as: UTF8.self) } == #"{"default": "demo", "scenes": ["demo", "seed-table", "feed"]}"# + "\n")
    }

    @Test func assetsAreServedAtTheirOwnPathOnlyWithTheirType() {
        let h = Harness(scenes: Self.withFeed())
        let reply = h.service.respond(method: "GET", path: "/scene-images/feed/background.png")
        #expect(reply?.contentType == "image/png" && reply?.body == Self.png)
        #expect(h.service.respond(method: "HEAD", path: "/scene-images/feed/background.png")?.status == 200)
        for path in ["/scene-images/feed/background.PNG", "scene-images/feed/background.png", "/scene-images/feed/",
                     "/scene-images/feed/../feed/background.png"] {
            #expect(h.service.respond(method: "GET", path: path) == nil, "\(path)")
        }
        #expect(h.service.respond(method: "POST", path: "/scene-images/feed/background.png") == nil)
        #expect(Harness().service.respond(method: "GET", path: "/scene-images/feed/background.png") == nil, "only where the scene is")
    }

    @Test func aJoinNamingTheAddedSceneMakesARoomOfIt() throws {
        let h = Harness(scenes: Self.withFeed())
        let (_, sink) = h.viewer(joining: "feed-room", extra: #","scene":"feed""#)
        let snapshot = try #require(sink.messages.first)
        #expect(snapshot["sceneName"] as? String == "feed")
        let scene = try #require(snapshot["scene"] as? [String: Any])
        #expect((scene["background"] as? [String: Any])?["image"] as? String == "scene-images/feed/background.png")
        #expect(h.registry.room(named: "feed-room")?.sceneName == "feed")
    }
}
