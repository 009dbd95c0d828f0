/// One problem with a scene file: where (its JSON path and, when it has one, its line) and what.
public struct SceneFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of the value at fault, e.g. `$.sections[2].rows[0].height` (`$` is the whole file).
    public var path: String
    /// 1-based line in the scene file; nil for problems with no place in it (an unreadable file,
    /// a bad file name).
    public var line: Int?
    public var message: String

    public init(path: String, line: Int?, _ message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `FILE:LINE: PATH: message`, or `FILE: PATH: message` without a line: what
    /// `scrollcast scene check` prints and the server logs.
    public func formatted(file: String) -> String {
        if let line { return "\(file):\(line): \(path): \(message)" }
        return "\(file): \(path): \(message)"
    }

    public var description: String { formatted(file: "<scene>") }
}

/// How JSON paths are written in errors: `$`, then `.name` per field (`["odd name"]` when the
/// name is not a plain identifier) and `[i]` per array element.
enum SceneFilePath {
    static func field(_ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
        }
        if plain { return "." + key }
        var escaped = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "[\"" + escaped + "\"]"
    }

    static func element(_ index: Int) -> String { "[\(index)]" }

    static func render(_ components: [String]) -> String { "$" + components.joined() }
}

/// Every limit a scene file is held to (docs/scenes.md lists them).
public enum SceneFileLimits {
    /// Most rows in one scene, all sections together. The demo has 3,000; a snapshot lists
    /// every row id, and the server keeps every row's texts in memory per scene.
    public static let maxRows = 20_000
    /// Largest scene file, in bytes.
    public static let maxFileBytes = 8 * 1024 * 1024
    /// Largest image file, in bytes: the server keeps every scene image in memory.
    public static let maxImageBytes = 8 * 1024 * 1024
    /// Largest image side in pixels (WebP's own limit is 16,383).
    public static let maxImageSide = 16_383
    /// Most pixels in an image (40 megapixels: 160 MB once a browser decodes it).
    public static let maxImagePixels = 40_000_000
    /// Longest text (a title, subtitle, group or detail), in Unicode scalars.
    public static let maxTextLength = 256
    /// Most parallax layers.
    public static let maxLayers = 16
    /// Deepest JSON nesting (a scene needs 5).
    public static let maxNesting = 32
    /// Viewport sides, in points: what a `resize` may ask for (docs/protocol.md).
    public static let viewportSide: ClosedRange<Double> = 100...4000
    /// Errors reported per file; a file with more ends with one saying how many were left out.
    public static let maxErrorsReported = 100
}
