/// PNG's structure (ISO/IEC 15948): the signature, then chunks, each with its CRC, from IHDR
/// through PLTE (where the colour type needs one) and consecutive IDATs to an empty IEND that
/// ends the file. An animation (APNG's acTL) is refused, as for WebP.
enum PNGCheck {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Bit depths each colour type allows.
    private static let depths: [UInt8: Set<UInt8>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]

    static func inspect(_ bytes: [UInt8]) throws(SceneImageProblem) -> SceneImageInfo {
        var at = signature.count
        var width = 0, height = 0, colourType: UInt8 = 0
        var sawPalette = false, idatState = 0 // 0 none yet, 1 inside the run, 2 after it
        var index = 0
        while true {
            guard bytes.count - at >= 12 else { throw problem("PNG ends inside a chunk (no IEND)") }
            let length = Int(bytes.bigEndian32(at: at))
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            guard bytes[at + 4..<at + 8].allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else {
                throw problem("PNG chunk \(index) has an invalid type")
            }
            guard length <= 0x7FFF_FFFF, bytes.count - at - 12 >= length else {
                throw problem("PNG chunk \(type) runs past the end of the file")
            }
            let data = at + 8
            let stored = bytes.bigEndian32(at: data + length)
            guard CRC32.checksum(bytes[at + 4..<data + length]) == stored else {
                throw problem("PNG chunk \(type) fails its CRC (the file is damaged)")
            }
            if index == 0, type != "IHDR" { throw problem("PNG does not start with IHDR") }
            switch type {
            case "IHDR":
                guard index == 0 else { throw problem("PNG has a second IHDR") }
                guard length == 13 else { throw problem("PNG IHDR has length \(length), not 13") }
                width = Int(bytes.bigEndian32(at: data))
                height = Int(bytes.bigEndian32(at: data + 4))
                colourType = bytes[data + 9]
                guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
                    throw problem("PNG IHDR gives a size of \(width)×\(height)")
                }
                guard let allowed = depths[colourType], allowed.contains(bytes[data + 8]) else {
                    throw problem("PNG IHDR has bit depth \(bytes[data + 8]) with colour type \(colourType), which PNG does not define")
                }
                guard bytes[data + 10] == 0, bytes[data + 11] == 0, bytes[data + 12] <= 1 else {
                    throw problem("PNG IHDR names an unknown compression, filter or interlace method")
                }
            case "PLTE":
                guard idatState == 0 else { throw problem("PNG PLTE comes after IDAT") }
                guard length > 0, length % 3 == 0, length <= 768 else { throw problem("PNG PLTE has length \(length)") }
                sawPalette = true
            case "IDAT":
                guard idatState != 2 else { throw problem("PNG IDAT chunks are not consecutive") }
                if colourType == 3, !sawPalette { throw problem("PNG with colour type 3 has no PLTE before its IDAT") }
                idatState = 1
            case "IEND":
                guard idatState != 0 else { throw problem("PNG has no IDAT (no image data)") }
                guard length == 0 else { throw problem("PNG IEND is not empty") }
                guard data + 4 == bytes.count else { throw problem("PNG has \(bytes.count - data - 4) bytes after IEND") }
                return SceneImageInfo(format: .png, width: width, height: height)
            case "acTL":
                throw problem("an animated PNG (APNG) is not accepted: a scene image is one picture")
            default:
                // Bit 5 of the first letter clear: a critical chunk, which a decoder must understand.
                if bytes[at + 4] & 0x20 == 0 { throw problem("PNG has an unknown critical chunk \(type)") }
            }
            if idatState == 1, type != "IDAT" { idatState = 2 }
            at = data + length + 4
            index += 1
        }
    }

    private static func problem(_ message: String) -> SceneImageProblem { SceneImageProblem(message) }
}

/// The CRC-32 of PNG (and zlib, gzip): polynomial 0xEDB88320, reflected.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
