import ScrollEngine
import Synchronization

/// The scenes uploaded while the server runs (and those read back from the store at start-up),
/// shared by every copy of the catalogue they were made with: a catalogue is a value, handed to
/// the registry, the store and the exports once, and an upload must reach all of them.
public final class UploadedScenes: Sendable {
    struct Scene: Sendable {
        var template: ScrollScene
        var bytes: Int
        var sceneFile: [UInt8]
    }
    private struct Contents: Sendable {
        var scenes: [String: Scene] = [:]
        var assets: [String: SceneAsset] = [:]
        var totalBytes = 0
    }
    private let contents = Mutex(Contents())

    public init() {}

    /// Adds an uploaded scene with its images (their bytes counted in `totalBytes` with
    /// `uploadBytes`); no effect when it is there already (the same upload again).
    public func add(name: String, configuration: SceneConfiguration, sceneFile: [UInt8], assets: [SceneAsset], uploadBytes: Int) {
        contents.withLock { contents in
            guard contents.scenes[name] == nil else { return }
            contents.scenes[name] = Scene(template: ScrollScene(configuration: configuration), bytes: uploadBytes, sceneFile: sceneFile)
            for asset in assets { contents.assets["/" + asset.path] = asset }
            contents.totalBytes += uploadBytes
        }
    }

    /// Whether a scene called `name` was uploaded.
    public func contains(_ name: String) -> Bool { contents.withLock { $0.scenes[name] != nil } }

    /// Bytes of every upload together (scene files and images): what the per-server limit counts.
    public var totalBytes: Int { contents.withLock { $0.totalBytes } }

    /// How many scenes were uploaded.
    public var count: Int { contents.withLock { $0.scenes.count } }

    /// The JSON file an uploaded scene was made from, as uploaded: what its rooms' recordings carry.
    public func sceneFile(named name: String) -> [UInt8]? { contents.withLock { $0.scenes[name]?.sceneFile } }

    func template(named name: String) -> ScrollScene? { contents.withLock { $0.scenes[name]?.template } }
    func asset(atPath path: String) -> SceneAsset? { contents.withLock { $0.assets[path] } }
}
