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
        /// Files the server serves for the scene (a scene file's images), at paths its
        /// configuration names; built-in scenes use the page's own images and have none.
        public var assets: [SceneAsset]

        /// A named scene.
        public init(name: String, assets: [SceneAsset] = [], build: @escaping @Sendable () -> SceneConfiguration) {
            self.name = name
            self.assets = assets
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
    /// Every entry's assets by the path they are served under (with its leading "/").
    private let assets: [String: SceneAsset]

    /// A catalogue of `entries`; `defaultName` must be one of them, and names must be unique.
    public init(entries: [Entry], defaultName: String) {
        precondition(entries.contains { $0.name == defaultName }, "default scene '\(defaultName)' is not in the catalogue")
        precondition(Set(entries.map(\.name)).count == entries.count, "scene names must be unique")
        self.entries = entries
        self.defaultName = defaultName
        self.templates = entries.map { ScrollScene(configuration: $0.build()) }
        var assets: [String: SceneAsset] = [:]
        for asset in entries.flatMap(\.assets) {
            precondition(assets["/" + asset.path] == nil, "two scene assets at '\(asset.path)'")
            assets["/" + asset.path] = asset
        }
        self.assets = assets
    }

    /// This catalogue with `more` scenes after its own, and the same default.
    public func adding(_ more: [Entry]) -> SceneCatalogue {
        SceneCatalogue(entries: entries + more, defaultName: defaultName)
    }

    /// The asset served at `path` (a request path, e.g. "/scene-images/feed/background.png"), if any.
    public func asset(atPath path: String) -> SceneAsset? { assets[path] }

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

/// A file the server serves for a scene (an image of a scene file), read once at start-up.
public struct SceneAsset: Sendable {
    /// Where it is served, relative to the page's root, as the scene's configuration names it
    /// (e.g. "scene-images/feed/background.png"). Chosen by the server, never by a client.
    public var path: String
    /// Its Content-Type, from its content (e.g. "image/png").
    public var contentType: String
    public var bytes: [UInt8]

    public init(path: String, contentType: String, bytes: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.bytes = bytes
    }
}
