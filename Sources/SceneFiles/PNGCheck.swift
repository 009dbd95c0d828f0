internal import CZlib

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

    /// Checks that the image data (its IDATs, joined) inflates to exactly the image's rows, each
    /// with a known filter type. Run only on a PNG `inspect` accepted, whose size is within the limits.
    static func checkImageData(_ bytes: [UInt8]) throws(SceneImageProblem) {
        var at = signature.count
        var data: [UInt8] = []
        var width = 0, height = 0, bitsPerPixel = 0, interlaced = false
        while bytes.count - at >= 12 {
            let length = Int(bytes.bigEndian32(at: at))
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            if type == "IHDR" {
                width = Int(bytes.bigEndian32(at: at + 8))
                height = Int(bytes.bigEndian32(at: at + 12))
                let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(bytes[at + 17])] ?? 1
                bitsPerPixel = channels * Int(bytes[at + 16])
                interlaced = bytes[at + 20] == 1
            } else if type == "IDAT" {
                data.append(contentsOf: bytes[at + 8..<at + 8 + length])
            }
            at += 12 + length
        }
        // Adam7's passes: where each starts and how far apart its pixels are, across and down.
        let passes = interlaced ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
                                : [(0, 0, 1, 1)]
        var rowLengths: [UInt64] = [], rowCounts: [UInt64] = []
        for (x0, y0, dx, dy) in passes {
            let columns = width > x0 ? (width - x0 + dx - 1) / dx : 0
            let rows = height > y0 ? (height - y0 + dy - 1) / dy : 0
            // An empty pass has no rows at all, not even filter bytes.
            rowLengths.append(UInt64(1 + (columns * bitsPerPixel + 7) / 8))
            rowCounts.append(UInt64(columns == 0 ? 0 : rows))
        }
        let result = data.withUnsafeBufferPointer { input in
            scrollcast_png_inflate_check(input.baseAddress, input.count, rowLengths, rowCounts, Int32(passes.count))
        }
        switch Int(result) {
        case SCROLLCAST_PNG_DATA_OK: return
        case SCROLLCAST_PNG_DATA_DAMAGED: throw problem("PNG image data does not inflate (the compressed data is damaged)")
        case SCROLLCAST_PNG_DATA_SHORT: throw problem("PNG image data ends before the image's last row")
        case SCROLLCAST_PNG_DATA_LONG: throw problem("PNG image data holds more than the image's rows")
        case SCROLLCAST_PNG_DATA_FILTER: throw problem("PNG image data has a row with an unknown filter type")
        case SCROLLCAST_PNG_DATA_TRAILING: throw problem("PNG image data has bytes after its compressed stream")
        default: throw problem("PNG image data could not be checked (out of memory)")
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
