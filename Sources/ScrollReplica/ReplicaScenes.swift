import ScrollEngine
import ScrollWire

/// The catalogue's built-in scenes by name, for a replica that must build the scene a snapshot
/// names (`sceneName`). The server's `SceneCatalogue.standard` offers exactly these; a test
/// checks that both give the same configuration for every name, so the two cannot drift.
public enum ReplicaScenes {
    /// Every name a replica can build, in the catalogue's order.
    public static let names = ["demo", "seed-table"]

    /// The scene called `name`, or nil when it is not a built-in one.
    public static func configuration(named name: String) -> SceneConfiguration? {
        // By UTF-8 bytes, not `==`, which would bring String's Unicode tables into the WebAssembly module.
        if sameUTF8(name, "demo") { return demo }
        if sameUTF8(name, "seed-table") { return seedTable }
        return nil
    }

    // Built once: a configuration is a value, and the demo's 3,000 rows take a while to write.
    private static let demo = DemoScene.configuration()
    private static let seedTable = SeedTableScene.configuration()
}
