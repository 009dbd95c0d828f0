import Foundation
import ScrollEngine

/// One image of a scene as the server serves it: read and checked once, at start-up.
public struct SceneFileImage: Sendable, Equatable {
    /// The path the server serves it under, chosen by the server (`scene-images/NAME/ROLE.EXT`):
    /// the snapshot's `image`, a path under the page's root.
    public var servedPath: String
    /// The file it was read from.
    public var sourcePath: String
    public var format: SceneImageFormat
    public var bytes: [UInt8]
}

/// Reads the images a scene file names, from the scene file's folder, and checks each against
/// the size the scene gives it.
final class SceneFileImages {
    private let folder: URL
    private let sceneName: String
    private let report: SceneFileReport
    private(set) var images: [SceneFileImage] = []

    init(folder: URL, sceneName: String, report: SceneFileReport) {
        self.folder = folder
        self.sceneName = sceneName
        self.report = report
    }

    /// The served path of the image `name` for `role`, or nil (reported) when it is unusable.
    func check(_ name: String, path: String, line: Int, role: String, size: Size) -> String? {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\\") else {
            report.add(path, line, "must be the name of a file beside the scene file (no folders), got '\(name)'")
            return nil
        }
        if name.lowercased().hasSuffix(".svg") {
            report.add(path, line, "SVG is not accepted as a scene image: use PNG, JPEG or WebP ('\(name)')")
            return nil
        }
        let file = folder.appendingPathComponent(name)
        let bytes: [UInt8]
        switch Self.read(file.path, limit: SceneFileLimits.maxImageBytes) {
        case .failure(let problem):
            report.add(path, line, "image '\(name)': \(problem.message)")
            return nil
        case .success(let read): bytes = read
        }
        let info: SceneImageInfo
        do {
            info = try SceneImageCheck.inspect(bytes)
        } catch {
            report.add(path, line, "image '\(name)' cannot be decoded: \(error.message)")
            return nil
        }
        if let problem = Self.sizeProblem(info, size: size) {
            report.add(path, line, "image '\(name)' is \(info.width)×\(info.height) pixels, \(problem)")
            return nil
        }
        do {
            try SceneImageCheck.checkImageData(bytes, info)
        } catch {
            report.add(path, line, "image '\(name)' cannot be decoded: \(error.message)")
            return nil
        }
        let served = "scene-images/\(sceneName)/\(role).\(info.format.fileExtension)"
        images.append(SceneFileImage(servedPath: served, sourcePath: file.path, format: info.format, bytes: bytes))
        return served
    }

    /// Why `info`'s pixel size does not fit `size` points, or nil when it does: pixels must be
    /// the points times one scale k ≥ 1 (1×, 2×, 3× or between), the height within a pixel of
    /// k × height, where k = pixel width / width; and no side may exceed the limit.
    static func sizeProblem(_ info: SceneImageInfo, size: Size) -> String? {
        let limit = SceneFileLimits.maxImageSide
        if info.width > limit || info.height > limit { return "more than \(limit) pixels on a side" }
        if info.width * info.height > SceneFileLimits.maxImagePixels { return "more than \(SceneFileLimits.maxImagePixels) pixels in all" }
        let scale = Double(info.width) / size.width
        let points = "\(NumberRule.text(size.width))×\(NumberRule.text(size.height)) points"
        if scale < 1 { return "smaller than the \(points) the scene draws it at (it needs at least 1 pixel per point)" }
        let expected = scale * size.height
        if abs(Double(info.height) - expected) > 1 {
            return "not the shape of the \(points) the scene draws it at (at \(NumberRule.text((scale * 1000).rounded() / 1000))× it would be \(info.width)×\(Int(expected.rounded())))"
        }
        return nil
    }

    /// A file's bytes, refused when larger than `limit` before reading it.
    static func read(_ path: String, limit: Int) -> Result<[UInt8], SceneImageProblem> {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return .failure(SceneImageProblem("no such file"))
        }
        if isFolder.boolValue { return .failure(SceneImageProblem("is a folder, not a file")) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(SceneImageProblem("cannot be read (permission denied?)"))
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            if data.count > limit { return .failure(SceneImageProblem("is larger than \(limit / (1024 * 1024)) MiB")) }
            return .success(Array(data))
        } catch {
            return .failure(SceneImageProblem("cannot be read: \(error.localizedDescription)"))
        }
    }
}
