import ScrollEngine

/// The catalogue's built-in scenes by name, for a replica that must build the scene a snapshot
/// names (`sceneName`). The server's `SceneCatalogue.standard` offers exactly these; a test
/// checks that both give the same configuration for every name, so the two cannot drift.
public enum ReplicaScenes {
    /// Every name a replica can build, in the catalogue's order.
    public static let names = ["demo", "seed-table"]

    /// The scene called `name`, or nil when it is not a built-in one.
    public static func configuration(named name: String) -> SceneConfiguration? {
        switch name {
        case "demo": return DemoScene.configuration()
        case "seed-table": return SeedTableScene.configuration()
        default: return nil
        }
    }
}
