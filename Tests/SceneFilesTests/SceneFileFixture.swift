import Foundation
import SceneFiles

/// A scene file in a fresh temporary folder, beside copies of the example scenes' images
/// (scenes/ in the repository), loaded as the server loads it.
struct SceneFileFixture {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenes")
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("scene-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.examples.path) where !name.hasSuffix(".json") {
            try FileManager.default.copyItem(at: Self.examples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
    }

    /// The bytes of an example image.
    static func image(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: examples.appendingPathComponent(name)))
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }

    /// Writes `json` as `name` and loads it.
    func load(_ json: String, name: String = "scene.json", reserved: Set<String> = ["demo", "seed-table"]) throws -> Result<SceneFile, SceneFileErrors> {
        try write(name, Array(json.utf8))
        return SceneFileLoader.load(path: folder.appendingPathComponent(name).path, reservedNames: reserved)
    }

    /// The errors of `json` (none when it loads).
    func errors(_ json: String, name: String = "scene.json") throws -> [SceneFileError] {
        switch try load(json, name: name) {
        case .success: return []
        case .failure(let failure): return failure.errors
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A minimal good scene, one section with two rows (or `rows`), with `extra` top-level fields
/// (ending with a comma) on line 2: `headerHeight` is on line 3 and the rows start on line 4.
func minimalScene(_ extra: String = "", rows: String = #"{"title": "One"}, {"title": "Two", "height": 60}"#) -> String {
    """
    {
    \(extra.trimmingCharacters(in: .newlines))
    "headerHeight": 0,
    "sections": [{"title": "S", "rows": [\(rows)]}]
    }
    """
}
