/// The image formats a scene may use, told apart by their first bytes, never by a file name.
public enum SceneImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, webp

    /// The Content-Type the server sends the image with.
    public var contentType: String {
        switch self {
        case .png: return "image/png"
        case .jpeg: return "image/jpeg"
        case .webp: return "image/webp"
        }
    }

    /// The extension of the path the server serves it under.
    public var fileExtension: String {
        switch self {
        case .png: return "png"
        case .jpeg: return "jpg"
        case .webp: return "webp"
        }
    }
}

/// What an image file's structure says about it: its format and size in pixels.
public struct SceneImageInfo: Sendable, Equatable {
    public var format: SceneImageFormat
    public var width: Int
    public var height: Int
}

/// Why an image's bytes cannot be a scene image.
public struct SceneImageProblem: Error, Sendable, Equatable {
    public var message: String
    init(_ message: String) { self.message = message }
}

/// Reads an image file's format and size from its content and checks that its structure is
/// whole, without decoding pixels: PNG chunks with their CRCs from IHDR to IEND (and, in
/// `checkImageData`, its image data inflating to its rows), JPEG markers
/// from SOI through frame, tables and scans to EOI, WebP's RIFF container and its VP8, VP8L or
/// VP8X headers (docs/scenes.md, "Images": what "undecodable" covers).
public enum SceneImageCheck {
    public static func inspect(_ bytes: [UInt8]) throws(SceneImageProblem) -> SceneImageInfo {
        if bytes.starts(with: PNGCheck.signature) { return try PNGCheck.inspect(bytes) }
        if bytes.starts(with: [0xFF, 0xD8]) { return try JPEGCheck.inspect(bytes) }
        if bytes.starts(with: Array("RIFF".utf8)) { return try WebPCheck.inspect(bytes) }
        throw SceneImageProblem(unknownFormat(bytes))
    }

    /// Checks what `inspect` leaves out and can be checked without decoding pixels: that a PNG's
    /// image data inflates to exactly its rows. Costly for large images: call it on an image
    /// whose size is within the limits.
    public static func checkImageData(_ bytes: [UInt8], _ info: SceneImageInfo) throws(SceneImageProblem) {
        if info.format == .png { try PNGCheck.checkImageData(bytes) }
    }

    private static func unknownFormat(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "the file is empty" }
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        if start < bytes.count, bytes[start] == UInt8(ascii: "<") {
            return "SVG (or other XML/HTML) is not accepted as a scene image: use PNG, JPEG or WebP"
        }
        if bytes.starts(with: Array("GIF8".utf8)) { return "GIF is not accepted as a scene image: use PNG, JPEG or WebP" }
        let head = bytes.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: " ")
        return "not a PNG, JPEG or WebP file (it starts with \(head))"
    }
}

/// Big- and little-endian reads on a byte array, bounds checked by the callers.
extension Array where Element == UInt8 {
    func bigEndian16(at i: Int) -> Int { Int(self[i]) << 8 | Int(self[i + 1]) }
    func bigEndian32(at i: Int) -> UInt32 {
        UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }
    func littleEndian16(at i: Int) -> Int { Int(self[i]) | Int(self[i + 1]) << 8 }
    func littleEndian24(at i: Int) -> Int { Int(self[i]) | Int(self[i + 1]) << 8 | Int(self[i + 2]) << 16 }
    func littleEndian32(at i: Int) -> UInt32 {
        UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
    }
}
