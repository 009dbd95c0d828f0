import Foundation
import ScrollEngine

/// A scene read from a file and found good: what the server offers beside its built-in scenes.
public struct SceneFile: Sendable {
    /// The scene's name: the file's name without `.json` (e.g. `photo-feed` for `photo-feed.json`).
    public var name: String
    public var configuration: SceneConfiguration
    /// Its images, each once per use (the layers in order, then the background).
    public var images: [SceneFileImage]
}

/// Reads scene files: one file (`scrollcast scene check`) or every `*.json` in a folder
/// (`scrollcast --scenes DIR`).
public enum SceneFileLoader {
    /// The scene in the file at `path`, or every error it has. `reservedNames` are names it may
    /// not take (the built-in scenes').
    public static func load(path: String, reservedNames: Set<String>) -> Result<SceneFile, SceneFileErrors> {
        let url = URL(fileURLWithPath: path)
        let report = SceneFileReport()
        let fileName = url.lastPathComponent
        let name = fileName.hasSuffix(".json") ? String(fileName.dropLast(".json".count)) : fileName
        if !isValidSceneName(name) {
            report.add("$", nil, "the file's name gives the scene its name, and '\(name)' is not one: 1–64 characters of A–Z a–z 0–9 _ - . before '.json'")
        } else if reservedNames.contains(name) {
            report.add("$", nil, "'\(name)' is the name of a built-in scene; rename the file")
        }
        let bytes: [UInt8]
        switch SceneFileImages.read(path, limit: SceneFileLimits.maxFileBytes) {
        case .failure(let problem):
            report.add("$", nil, "cannot read the scene file: \(problem.message)")
            return .failure(SceneFileErrors(path: path, errors: report.all))
        case .success(let read): bytes = read
        }
        let root: SceneJSON
        do {
            root = try SceneJSONReader.parse(bytes)
        } catch {
            report.add(error.path, error.line, "not valid JSON: \(error.message)")
            return .failure(SceneFileErrors(path: path, errors: report.all))
        }
        let images = SceneFileImages(folder: url.deletingLastPathComponent(), sceneName: name, report: report)
        let decoder = SceneFileDecoder(report: report, image: images.check)
        let configuration = decoder.decode(root)
        guard report.isEmpty, let configuration else {
            return .failure(SceneFileErrors(path: path, errors: report.all))
        }
        return .success(SceneFile(name: name, configuration: configuration, images: images.images))
    }

    /// Every `*.json` file in `folder`, in name order: the good scenes and the bad files with
    /// their errors. Throws only when the folder itself cannot be listed.
    public static func loadFolder(_ folder: String, reservedNames: Set<String>) throws -> (scenes: [SceneFile], failures: [SceneFileErrors]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        var scenes: [SceneFile] = [], failures: [SceneFileErrors] = []
        for name in names {
            switch load(path: URL(fileURLWithPath: folder).appendingPathComponent(name).path, reservedNames: reservedNames) {
            case .success(let scene): scenes.append(scene)
            case .failure(let errors): failures.append(errors)
            }
        }
        return (scenes, failures)
    }

    /// Scene names: what `join.scene` and the page's `?scene=` accept.
    public static func isValidSceneName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }
}

/// Every error of one scene file.
public struct SceneFileErrors: Error, Sendable {
    /// The file, as it was named.
    public var path: String
    public var errors: [SceneFileError]

    /// One `FILE:LINE: PATH: message` line per error.
    public var lines: [String] { errors.map { $0.formatted(file: path) } }
}
