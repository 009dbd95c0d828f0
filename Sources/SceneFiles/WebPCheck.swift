/// WebP's structure (RFC 9649): a RIFF container whose size is the file's, holding either one
/// `VP8 ` (lossy) or `VP8L` (lossless) chunk, or a `VP8X` header and then the chunks it
/// announces with one image chunk the size of its canvas. Animations are not accepted: a scene
/// image is one picture.
enum WebPCheck {
    private struct Chunk {
        var fourCC: String
        var data: ArraySlice<UInt8>
    }

    static func inspect(_ bytes: [UInt8]) throws(SceneImageProblem) -> SceneImageInfo {
        guard bytes.count >= 12, bytes[8..<12].elementsEqual("WEBP".utf8) else {
            throw SceneImageProblem("a RIFF file that is not WebP")
        }
        let riffSize = Int(bytes.littleEndian32(at: 4))
        guard riffSize + 8 == bytes.count else {
            throw SceneImageProblem("WebP's RIFF header says \(riffSize + 8) bytes, the file has \(bytes.count) (cut short or padded)")
        }
        let chunks = try chunks(bytes)
        guard let first = chunks.first else { throw SceneImageProblem("WebP has no chunks") }
        switch first.fourCC {
        case "VP8 ", "VP8L":
            guard chunks.count == 1 else { throw SceneImageProblem("a simple WebP has chunks after its image") }
            return try image(first)
        case "VP8X":
            return try extended(first, rest: chunks.dropFirst())
        default:
            throw SceneImageProblem("WebP starts with a \(first.fourCC) chunk, not VP8, VP8L or VP8X")
        }
    }

    private static func chunks(_ bytes: [UInt8]) throws(SceneImageProblem) -> [Chunk] {
        var at = 12
        var result: [Chunk] = []
        while at < bytes.count {
            guard bytes.count - at >= 8 else { throw SceneImageProblem("WebP ends inside a chunk header") }
            let fourCC = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = Int(bytes.littleEndian32(at: at + 4))
            // Odd sizes are padded to even.
            guard bytes.count - at - 8 >= size + size % 2 else { throw SceneImageProblem("WebP chunk \(fourCC) runs past the end of the file") }
            result.append(Chunk(fourCC: fourCC, data: bytes[at + 8..<at + 8 + size]))
            at += 8 + size + size % 2
        }
        return result
    }

    /// A `VP8 ` key frame's or `VP8L` stream's size.
    private static func image(_ chunk: Chunk) throws(SceneImageProblem) -> SceneImageInfo {
        let data = Array(chunk.data)
        if chunk.fourCC == "VP8L" {
            guard data.count >= 5, data[0] == 0x2F else { throw SceneImageProblem("WebP VP8L chunk lacks its signature byte 0x2F") }
            let bits = data.littleEndian32(at: 1)
            guard bits >> 29 == 0 else { throw SceneImageProblem("WebP VP8L has version \(bits >> 29), not 0") }
            return SceneImageInfo(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        }
        guard data.count >= 10 else { throw SceneImageProblem("WebP VP8 chunk is too short for a frame header") }
        let tag = data.littleEndian24(at: 0)
        guard tag & 1 == 0 else { throw SceneImageProblem("WebP VP8 data does not start with a key frame") }
        guard (tag >> 1) & 7 <= 3 else { throw SceneImageProblem("WebP VP8 frame has an unknown version") }
        guard (tag >> 4) & 1 == 1 else { throw SceneImageProblem("WebP VP8 frame is not meant to be shown") }
        guard tag >> 5 <= data.count - 10 else { throw SceneImageProblem("WebP VP8 first partition runs past its chunk (cut short)") }
        guard data[3] == 0x9D, data[4] == 0x01, data[5] == 0x2A else { throw SceneImageProblem("WebP VP8 frame lacks its start code") }
        let width = data.littleEndian16(at: 6) & 0x3FFF, height = data.littleEndian16(at: 8) & 0x3FFF
        guard width > 0, height > 0 else { throw SceneImageProblem("WebP VP8 frame gives a size of \(width)×\(height)") }
        return SceneImageInfo(format: .webp, width: width, height: height)
    }

    private static func extended(_ header: Chunk, rest: ArraySlice<Chunk>) throws(SceneImageProblem) -> SceneImageInfo {
        let data = Array(header.data)
        guard data.count == 10 else { throw SceneImageProblem("WebP VP8X chunk has \(data.count) bytes, not 10") }
        if data[0] & 0x02 != 0 || rest.contains(where: { $0.fourCC == "ANIM" || $0.fourCC == "ANMF" }) {
            throw SceneImageProblem("an animated WebP is not accepted: a scene image is one picture")
        }
        let width = data.littleEndian24(at: 4) + 1, height = data.littleEndian24(at: 7) + 1
        let images = rest.filter { $0.fourCC == "VP8 " || $0.fourCC == "VP8L" }
        guard images.count == 1 else { throw SceneImageProblem("WebP VP8X has \(images.count) image chunks, not 1") }
        let info = try image(images[0])
        guard info.width == width, info.height == height else {
            throw SceneImageProblem("WebP canvas is \(width)×\(height) but its image is \(info.width)×\(info.height)")
        }
        return info
    }
}
