/// JPEG's structure (ITU-T T.81): SOI, then marker segments of the lengths they state: one
/// frame header (SOFn) giving the size, the quantisation and Huffman tables its scans use, and
/// scans (SOS) whose entropy-coded data runs to the next marker, then EOI ending the file.
enum JPEGCheck {
    /// SOF markers: baseline, extended, progressive and lossless, Huffman or arithmetic coded.
    private static let frameMarkers: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]

    static func inspect(_ bytes: [UInt8]) throws(SceneImageProblem) -> SceneImageInfo {
        var at = 2
        var size: (width: Int, height: Int)?
        var arithmetic = false
        var frameComponents: [UInt8: UInt8] = [:]   // component id → quantisation table
        var quantisation = Set<UInt8>(), huffman = Set<UInt8>()   // huffman: class << 4 | id
        var scans = 0
        while true {
            // Markers may be preceded by fill bytes 0xFF.
            guard at < bytes.count, bytes[at] == 0xFF else { throw problem(at >= bytes.count ? "JPEG ends without EOI" : "JPEG has bytes where a marker should be (offset \(at))") }
            while at < bytes.count, bytes[at] == 0xFF { at += 1 }
            guard at < bytes.count else { throw problem("JPEG ends without EOI") }
            let marker = bytes[at]
            at += 1
            switch marker {
            case 0xD9:
                guard size != nil else { throw problem("JPEG has no frame header (SOF)") }
                guard scans > 0 else { throw problem("JPEG has no scan (SOS): no image data") }
                guard at == bytes.count else { throw problem("JPEG has \(bytes.count - at) bytes after EOI") }
                return SceneImageInfo(format: .jpeg, width: size!.width, height: size!.height)
            case 0xD8: throw problem("JPEG has a second SOI")
            case 0xD0...0xD7: throw problem("JPEG has a restart marker outside a scan")
            case 0x01: continue
            case 0x00: throw problem("JPEG has an invalid marker 0xFF00 outside a scan")
            default: break
            }
            guard bytes.count - at >= 2 else { throw problem("JPEG ends inside a marker segment") }
            let length = bytes.bigEndian16(at: at)
            guard length >= 2, bytes.count - at >= length else {
                throw problem("JPEG marker 0xFF\(hex(marker)) segment runs past the end of the file")
            }
            let body = Array(bytes[at + 2..<at + length])
            at += length
            if frameMarkers.contains(marker) {
                guard size == nil else { throw problem("JPEG has a second frame header (SOF)") }
                guard body.count >= 6 else { throw problem("JPEG frame header is too short") }
                let height = body.bigEndian16(at: 1), width = body.bigEndian16(at: 3), count = Int(body[5])
                guard (1...4).contains(count), body.count == 6 + 3 * count else { throw problem("JPEG frame header lists \(count) components in \(body.count) bytes") }
                guard width > 0, height > 0 else { throw problem("JPEG frame header gives a size of \(width)×\(height) (a height set later by DNL is not accepted)") }
                for i in 0..<count { frameComponents[body[6 + 3 * i]] = body[8 + 3 * i] }
                size = (width, height)
                arithmetic = marker >= 0xC9
                continue
            }
            switch marker {
            case 0xC4: try huffmanTables(body, into: &huffman)
            case 0xDB: try quantisationTables(body, into: &quantisation)
            case 0xDA:
                guard size != nil else { throw problem("JPEG has a scan (SOS) before its frame header (SOF)") }
                try scanHeader(body, frame: frameComponents, quantisation: quantisation, huffman: huffman, arithmetic: arithmetic)
                scans += 1
                at = try endOfEntropyData(bytes, from: at)
            default: break   // APPn, COM, DRI, DAC, DNL…: lengths checked, content not needed
            }
        }
    }

    private static func huffmanTables(_ body: [UInt8], into defined: inout Set<UInt8>) throws(SceneImageProblem) {
        var i = 0
        while i < body.count {
            guard body.count - i >= 17, body[i] >> 4 <= 1, body[i] & 0x0F <= 3 else { throw problem("JPEG Huffman table (DHT) is malformed") }
            let count = body[i + 1..<i + 17].reduce(0) { $0 + Int($1) }
            guard count <= 256, body.count - i - 17 >= count else { throw problem("JPEG Huffman table (DHT) is malformed") }
            defined.insert(body[i])
            i += 17 + count
        }
    }

    private static func quantisationTables(_ body: [UInt8], into defined: inout Set<UInt8>) throws(SceneImageProblem) {
        var i = 0
        while i < body.count {
            let precision = body[i] >> 4, id = body[i] & 0x0F
            let size = precision == 0 ? 64 : 128
            guard precision <= 1, id <= 3, body.count - i - 1 >= size else { throw problem("JPEG quantisation table (DQT) is malformed") }
            defined.insert(id)
            i += 1 + size
        }
    }

    private static func scanHeader(_ body: [UInt8], frame: [UInt8: UInt8], quantisation: Set<UInt8>,
                                   huffman: Set<UInt8>, arithmetic: Bool) throws(SceneImageProblem) {
        guard let count = body.first.map(Int.init), (1...4).contains(count), body.count == 4 + 2 * count else {
            throw problem("JPEG scan header (SOS) is malformed")
        }
        for i in 0..<count {
            guard let table = frame[body[1 + 2 * i]] else { throw problem("JPEG scan uses a component the frame does not have") }
            guard quantisation.contains(table) else { throw problem("JPEG scan needs quantisation table \(table), which is not defined") }
            // Arithmetic coding needs no Huffman tables; a scan needs a DC table only if it codes
            // DC (spectral start 0) and an AC table only if it codes AC (spectral end above 0).
            if !arithmetic {
                let dc = body[2 + 2 * i] >> 4, ac = body[2 + 2 * i] & 0x0F
                let spectralStart = body[1 + 2 * count]
                if spectralStart == 0, !huffman.contains(dc) { throw problem("JPEG scan needs DC Huffman table \(dc), which is not defined") }
                if body[2 + 2 * count] > 0, !huffman.contains(0x10 | ac) { throw problem("JPEG scan needs AC Huffman table \(ac), which is not defined") }
            }
        }
    }

    /// Where the entropy-coded data after a scan header ends: at the first marker other than a
    /// stuffed 0xFF00 or a restart marker.
    private static func endOfEntropyData(_ bytes: [UInt8], from start: Int) throws(SceneImageProblem) -> Int {
        var at = start
        while at < bytes.count - 1 {
            if bytes[at] == 0xFF {
                let next = bytes[at + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF { at += next == 0xFF ? 1 : 2; continue }
                return at
            }
            at += 1
        }
        throw problem("JPEG ends inside a scan's data (the file is cut short)")
    }

    private static func hex(_ byte: UInt8) -> String { String(byte, radix: 16, uppercase: true) }
    private static func problem(_ message: String) -> SceneImageProblem { SceneImageProblem(message) }
}
