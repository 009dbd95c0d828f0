import ScrollEngine

/// The scenes rooms can be created with, by name: what `join.scene` may ask for and what a
/// snapshot's `sceneName` says. The engine only builds scenes; naming them is the server's job,
/// so a deployment can offer its own scenes without touching the engine.
public struct SceneCatalogue: Sendable {
    /// One named scene.
    public struct Entry: Sendable {
        /// The name clients use.
        public var name: String
        /// Builds the scene; must give the same configuration every time (rooms of one scene
        /// must look alike, and a restored room must match its recording).
        public var build: @Sendable () -> SceneConfiguration

        /// A named scene.
        public init(name: String, build: @escaping @Sendable () -> SceneConfiguration) {
            self.name = name
            self.build = build
        }
    }

    /// Every scene, in the order error messages and docs list them.
    public let entries: [Entry]
    /// The scene of a room whose first join names none.
    public let defaultName: String

    /// Each entry's scene, built once: every room of a scene starts as a copy of it, sharing its
    /// rows and layout (500 rooms of the demo held 500 copies of its 3,000 rows and their prefix
    /// sums, and a frame of each walked its own).
    private let templates: [ScrollScene]

    /// A catalogue of `entries`; `defaultName` must be one of them, and names must be unique.
    public init(entries: [Entry], defaultName: String) {
        precondition(entries.contains { $0.name == defaultName }, "default scene '\(defaultName)' is not in the catalogue")
        precondition(Set(entries.map(\.name)).count == entries.count, "scene names must be unique")
        self.entries = entries
        self.defaultName = defaultName
        self.templates = entries.map { ScrollScene(configuration: $0.build()) }
    }

    /// `demo`, the Path-like timeline (the default), and `seed-table`, the DemoTable of
    /// scroll-to-row-near-edges.txt, so its "scroll to row 19, middle" can be tried literally.
    public static let standard = SceneCatalogue(
        entries: [Entry(name: "demo", build: { DemoScene.configuration() }),
                  Entry(name: "seed-table", build: SeedTableScene.configuration)],
        defaultName: "demo")

    /// Every name, comma-separated, for error messages.
    public var namesList: String { entries.map(\.name).joined(separator: ", ") }

    /// The scene called `name`, or nil if the catalogue has none (its template's: built once).
    public func configuration(named name: String) -> SceneConfiguration? {
        entries.firstIndex { $0.name == name }.map { templates[$0].configuration }
    }

    /// A fresh scene of the scene called `name`, at rest at `offset` (nil: the top), sharing the
    /// catalogue's storage of its rows and layout; nil if the catalogue has none. The same scene as
    /// `ScrollScene(configuration: configuration(named: name)!, restingAt: offset)`.
    public func scene(named name: String, restingAt offset: Double? = nil) -> ScrollScene? {
        entries.firstIndex { $0.name == name }.map { templates[$0].fresh(restingAt: offset) }
    }

    /// Whether the catalogue has a scene called `name`.
    public func contains(_ name: String) -> Bool {
        entries.contains { $0.name == name }
    }
}
