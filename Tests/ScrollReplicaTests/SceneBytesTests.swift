import ScrollEngine
import ScrollReplica
import ScrollWire
import Testing

/// A whole scene as bytes (`SceneBytes`, docs/wasm.md "Any scene"): what a page's replica builds
/// a file or uploaded scene from. Exact for every scene, and bytes that are not a whole scene
/// are refused.
@Suite struct SceneBytesTests {
    static let small = SceneConfiguration(
        viewport: Size(width: 390.5, height: 844), insets: EdgeInsets(top: 44, left: 1, bottom: 2, right: 3), headerHeight: 0,
        parallaxLayers: [ParallaxLayer(image: "scene-images/x/layer-0.png", size: Size(width: 390, height: 410), restingY: -150.25,
                                       pullFactor: 0.15, scrollFactor: 0.5)],
        background: BackgroundImage(image: "scene-images/x/background.webp", height: 3000),
        sections: [TableSection(title: "A", headerHeight: 0, rows: [
                       TableRow(id: 0, title: "one", subtitle: "s", group: "A", detail: "07:42", height: 280),
                       TableRow(id: 1, title: "two", group: "g", height: 280)]),
                   TableSection(title: "", rows: []),
                   TableSection(title: "日本", headerHeight: 31.7, rows: [TableRow(id: 2, title: "", height: -0.0 + 0.01)])],
        decelerationRate: .fast)

    @Test("every scene comes back equal: the built-in ones, a small one and 300 random ones")
    func roundTrip() throws {
        var scenes = [Self.small, DemoScene.configuration(), SeedTableScene.configuration()]
        scenes += (UInt64(0)..<300).compactMap { CrossCheckScript(seed: $0, randomScene: true).scene }
        var rows = Set<Int>()
        for scene in scenes {
            #expect(try SceneBytes.decode(SceneBytes.encode(scene)) == scene)
            rows.insert(scene.sections.reduce(0) { $0 + $1.rows.count })
        }
        // The random scenes reach both ends of the row range (1 and the scene files' limit).
        #expect(rows.contains(1) && rows.contains(20_000))
        // Compact: the demo's 3,000 rows take their texts' bytes and under 16 bytes a row more
        // (a height written in full is 8).
        let demo = DemoScene.configuration()
        let texts = demo.sections.flatMap(\.rows).reduce(0) { $0 + $1.title.utf8.count + $1.subtitle.utf8.count + $1.detail.utf8.count }
        #expect(SceneBytes.encode(demo).count < texts + 3000 * 16)
    }

    @Test("a changed byte gives another scene or an error, never the same one")
    func notBlind() {
        let bytes = SceneBytes.encode(Self.small)
        for i in bytes.indices {
            var changed = bytes
            changed[i] ^= 0x01
            #expect((try? SceneBytes.decode(changed)) != Self.small, "byte \(i)")
        }
    }

    @Test("bytes that are not a whole scene are refused")
    func refused() {
        let bytes = SceneBytes.encode(Self.small)
        for end in 0..<bytes.count { #expect(throws: WireError.self) { try SceneBytes.decode(Array(bytes[..<end])) } }
        #expect(throws: WireError.self) { try SceneBytes.decode(bytes + [0]) }
        func scene(rows: [Int], height: Double = 44, viewport: Double = 390) -> [UInt8] {
            SceneBytes.encode(SceneConfiguration(viewport: Size(width: viewport, height: 844),
                                                 sections: [TableSection(title: "s", rows: rows.map { TableRow(id: $0, title: "r", height: height) })]))
        }
        #expect((try? SceneBytes.decode(scene(rows: [0, 1]))) != nil)
        // Row ids other than 0 … n−1 in order (no scene a server offers has them).
        for bad in [scene(rows: [1, 0]), scene(rows: [0, 0]), scene(rows: [0, 2]), scene(rows: [1]), scene(rows: [5_000_000]),
                    scene(rows: [0], height: -1), scene(rows: [0], height: .nan), scene(rows: [0], height: .infinity),
                    scene(rows: [0], viewport: 0)] {
            #expect(throws: WireError.self) { try SceneBytes.decode(bad) }
        }
    }

    @Test("a replica of a random scene goes through its state bytes and continues bit-identically")
    func stateBytesOfAnyScene() throws {
        for seed in UInt64(0)..<40 {
            let script = CrossCheckScript(seed: seed, randomScene: true)
            let whole = CrossCheckRun.run(script).expect
            let run = CrossCheckRun.run(script, roundTripAt: script.stateStep)
            #expect(run.expect == whole, "seed \(seed)")
            var replica = EngineReplica(sceneNamed: script.sceneName, configuration: try #require(script.scene))
            try replica.restore(state: try #require(run.state))
            #expect(replica.stateBytes() == run.state)
        }
    }
}
