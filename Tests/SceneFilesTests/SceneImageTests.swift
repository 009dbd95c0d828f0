import Foundation
import Testing
@testable import SceneFiles

/// Images: told apart by content, checked for structure and against the size the scene gives them.
@Suite("Scene images")
struct SceneImageTests {
    /// A 390 × 410 pt layer using `image` (the feed's images are 390 × 410 px, its sky 780 × 820).
    private func layerScene(_ image: String, width: Int = 390, height: Int = 410) -> String {
        minimalScene(#""layers": [{"image": "\#(image)", "width": \#(width), "height": \#(height)}],"#)
    }

    private func layerError(_ fixture: SceneFileFixture, _ image: String, width: Int = 390, height: Int = 410,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let errors = try fixture.errors(layerScene(image, width: width, height: height))
        #expect(errors.count == 1, "\(errors)", sourceLocation: sourceLocation)
        let error = try #require(errors.first, sourceLocation: sourceLocation)
        #expect(error.path == "$.layers[0].image" && error.line == 2, sourceLocation: sourceLocation)
        return error.message
    }

    @Test func formatsAreReadFromContentNotNames() throws {
        #expect(try SceneImageCheck.inspect(SceneFileFixture.image("feed-sky.jpg")) == SceneImageInfo(format: .jpeg, width: 780, height: 820))
        #expect(try SceneImageCheck.inspect(SceneFileFixture.image("feed-ridge.webp")) == SceneImageInfo(format: .webp, width: 390, height: 410))
        #expect(try SceneImageCheck.inspect(SceneFileFixture.image("feed-hills.png")) == SceneImageInfo(format: .png, width: 390, height: 410))
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        // A JPEG named .png is a JPEG: served as one.
        try fixture.write("sky.png", try SceneFileFixture.image("feed-sky.jpg"))
        let scene = try fixture.load(layerScene("sky.png")).get()
        #expect(scene.images.map(\.format) == [.jpeg])
        #expect(scene.configuration.parallaxLayers[0].image == "scene-images/scene/layer-0.jpg")
    }

    @Test func missingUnreadableAndMisplacedImagesAreReported() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        #expect(try layerError(fixture, "nowhere.png") == "image 'nowhere.png': no such file")
        try FileManager.default.createDirectory(at: fixture.folder.appendingPathComponent("folder.png"), withIntermediateDirectories: false)
        #expect(try layerError(fixture, "folder.png") == "image 'folder.png': is a folder, not a file")
        #expect(try layerError(fixture, "../feed-hills.png") == "must be the name of a file beside the scene file (no folders), got '../feed-hills.png'")
        #expect(try layerError(fixture, "/etc/passwd").hasPrefix("must be the name of a file beside the scene file"))
    }

    @Test func svgGifAndUnknownFilesAreRefused() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        #expect(try layerError(fixture, "logo.svg") == "SVG is not accepted as a scene image: use PNG, JPEG or WebP ('logo.svg')")
        try fixture.write("vector.png", Array("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8))
        #expect(try layerError(fixture, "vector.png") == "image 'vector.png' cannot be decoded: SVG (or other XML/HTML) is not accepted as a scene image: use PNG, JPEG or WebP")
        try fixture.write("anim.png", Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 20))
        #expect(try layerError(fixture, "anim.png") == "image 'anim.png' cannot be decoded: GIF is not accepted as a scene image: use PNG, JPEG or WebP")
        try fixture.write("empty.png", [])
        #expect(try layerError(fixture, "empty.png") == "image 'empty.png' cannot be decoded: the file is empty")
        try fixture.write("text.png", Array("hello world".utf8))
        #expect(try layerError(fixture, "text.png") == "image 'text.png' cannot be decoded: not a PNG, JPEG or WebP file (it starts with 68 65 6c 6c 6f 20 77 6f)")
    }

    @Test func damagedPNGsAreUndecodable() throws {
        let png = try SceneFileFixture.image("feed-hills.png")
        func problem(_ bytes: [UInt8]) -> String? {
            do { _ = try SceneImageCheck.inspect(bytes); return nil } catch { return error.message }
        }
        var flipped = png
        flipped[60] ^= 0x01   // inside IDAT's data
        #expect(problem(flipped) == "PNG chunk IDAT fails its CRC (the file is damaged)")
        #expect(problem(Array(png.prefix(png.count / 2))) == "PNG chunk IDAT runs past the end of the file")
        #expect(problem(Array(png.dropLast(12))) == "PNG ends inside a chunk (no IEND)")
        #expect(problem(png + [0]) == "PNG has 1 bytes after IEND")
        // IHDR then straight to IEND: no image data.
        #expect(problem(Array(png.prefix(33)) + Array(png.suffix(12))) == "PNG has no IDAT (no image data)")
        // An APNG's acTL chunk after IHDR, with its CRC.
        let acTL: [UInt8] = Array("acTL".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
        let animated = Array(png.prefix(33)) + [0, 0, 0, 8] + acTL
            + withUnsafeBytes(of: CRC32.checksum(acTL[...]).bigEndian, Array.init) + Array(png.dropFirst(33))
        #expect(problem(animated) == "an animated PNG (APNG) is not accepted: a scene image is one picture")
        var noHeader = png
        noHeader.replaceSubrange(12..<16, with: Array("IHDx".utf8))
        // With its CRC made good again, so the order is what fails.
        noHeader.replaceSubrange(29..<33, with: withUnsafeBytes(of: CRC32.checksum(noHeader[12..<29]).bigEndian, Array.init))
        #expect(problem(noHeader) == "PNG does not start with IHDR")
    }

    @Test func damagedJPEGsAreUndecodable() throws {
        let jpeg = try SceneFileFixture.image("feed-sky.jpg")
        func problem(_ bytes: [UInt8]) -> String? {
            do { _ = try SceneImageCheck.inspect(bytes); return nil } catch { return error.message }
        }
        #expect(problem(Array(jpeg.dropLast(2))) == "JPEG ends inside a scan's data (the file is cut short)")
        #expect(problem(jpeg + [1, 2, 3]) == "JPEG has 3 bytes after EOI")
        // SOI, then EOI: no frame.
        #expect(problem([0xFF, 0xD8, 0xFF, 0xD9]) == "JPEG has no frame header (SOF)")
        // The quantisation table (the first segment, 67 bytes after SOI) taken out.
        #expect(problem(Array(jpeg.prefix(2)) + Array(jpeg.dropFirst(2 + 69))) == "JPEG scan needs quantisation table 0, which is not defined")
        #expect(problem(Array(jpeg.prefix(10))) == "JPEG marker 0xFFDB segment runs past the end of the file")
    }

    @Test func damagedWebPsAreUndecodable() throws {
        let webp = try SceneFileFixture.image("feed-ridge.webp")
        func problem(_ bytes: [UInt8]) -> String? {
            do { _ = try SceneImageCheck.inspect(bytes); return nil } catch { return error.message }
        }
        #expect(problem(Array(webp.dropLast(100))) == "WebP's RIFF header says \(webp.count) bytes, the file has \(webp.count - 100) (cut short or padded)")
        var version = webp
        version[24] |= 0x20   // VP8L version bits (29…31 of the size word) made non-zero
        #expect(problem(version) == "WebP VP8L has version 1, not 0")
        var signature = webp
        signature[20] = 0
        #expect(problem(signature) == "WebP VP8L chunk lacks its signature byte 0x2F")
        // A VP8X header announcing an animation.
        let vp8x: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0, 0x02, 0, 0, 0, 0x85, 0x01, 0, 0x99, 0x01, 0]
        let body = Array("WEBP".utf8) + vp8x + Array(webp.dropFirst(12))
        let animated = Array("RIFF".utf8) + withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init) + body
        #expect(problem(animated) == "an animated WebP is not accepted: a scene image is one picture")
        var still = animated
        still[20] = 0
        #expect(problem(still) == nil, "390 × 410 canvas over a 390 × 410 image")
        still[24] = 0x86
        #expect(problem(still) == "WebP canvas is 391×410 but its image is 390×410")
    }

    @Test func imagesMustHaveThePixelSizeTheSceneGivesThem() throws {
        let fixture = try SceneFileFixture()
        defer { fixture.remove() }
        // The sky is 780 × 820 px: 2× of 390 × 410 pt, 3× of 260 × 273.33.
        #expect(try fixture.errors(layerScene("feed-sky.jpg")).isEmpty)
        #expect(try fixture.errors(minimalScene(#""layers": [{"image": "feed-sky.jpg", "width": 260, "height": 273.3}],"#)).isEmpty)
        #expect(try layerError(fixture, "feed-sky.jpg", height: 300)
                == "image 'feed-sky.jpg' is 780×820 pixels, not the shape of the 390×300 points the scene draws it at (at 2× it would be 780×600)")
        #expect(try layerError(fixture, "feed-hills.png", width: 780, height: 820)
                == "image 'feed-hills.png' is 390×410 pixels, smaller than the 780×820 points the scene draws it at (it needs at least 1 pixel per point)")
        // The background is drawn across the viewport: 390 px wide at 1×, and as tall as its height.
        let background = try fixture.errors(minimalScene(#""background": {"image": "feed-background.png", "height": 2000},"#))
        #expect(background == [SceneFileError(path: "$.background.image", line: 2,
                                              "image 'feed-background.png' is 390×3000 pixels, not the shape of the 390×2000 points the scene draws it at (at 1× it would be 390×2000)")])
        let wider = try fixture.errors(minimalScene(#""viewport": {"width": 195, "height": 844}, "background": {"image": "feed-background.png", "height": 1500},"#))
        #expect(wider.isEmpty, "390 × 3000 px is 2× of 195 × 1500 pt")
    }
}

/// A PNG's image data must inflate to exactly its rows (zlib), each with a known filter type.
@Suite("PNG image data")
struct PNGImageDataTests {
    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + body
            + withUnsafeBytes(of: CRC32.checksum(body[...]).bigEndian, Array.init)
    }

    /// A zlib stream of one stored (uncompressed) block, with its Adler-32.
    private func stored(_ bytes: [UInt8]) -> [UInt8] {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let length = UInt16(bytes.count)
        return [0x78, 0x01, 0x01] + withUnsafeBytes(of: length.littleEndian, Array.init)
            + withUnsafeBytes(of: (~length).littleEndian, Array.init) + bytes + withUnsafeBytes(of: (b << 16 | a).bigEndian, Array.init)
    }

    /// A 3 × 2 RGBA PNG whose IDAT holds `idat`.
    private func png(_ idat: [UInt8], height: UInt32 = 2, interlaced: Bool = false) -> [UInt8] {
        let header = withUnsafeBytes(of: UInt32(3).bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init)
            + [8, 6, 0, 0, interlaced ? 1 : 0]
        return PNGCheck.signature + chunk("IHDR", header) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    private func problem(_ bytes: [UInt8]) -> String? {
        do {
            let info = try SceneImageCheck.inspect(bytes)
            try SceneImageCheck.checkImageData(bytes, info)
            return nil
        } catch {
            return error.message
        }
    }

    private let row: [UInt8] = [0] + [UInt8](repeating: 200, count: 12)

    @Test func rowsThatInflateExactlyPass() {
        #expect(problem(png(stored(row + row))) == nil)
        // Adam7 on 3 × 2: passes 1, 4 and 6 hold one pixel each, pass 7 the second row.
        let pixel: [UInt8] = [1, 9, 9, 9, 9]
        #expect(problem(png(stored(pixel + pixel + pixel + row), interlaced: true)) == nil)
        // The two plain rows' 26 bytes, all filter 0, fall 2 short of Adam7's 28.
        #expect(problem(png(stored([UInt8](repeating: 0, count: 26)), interlaced: true)) == "PNG image data ends before the image's last row")
        #expect(problem(png(stored([UInt8](repeating: 0, count: 26)))) == nil)
    }

    @Test func everyWayTheDataCanBeWrongIsNamed() {
        #expect(problem(png(stored(row))) == "PNG image data ends before the image's last row")
        #expect(problem(png(stored(row + row + [0]))) == "PNG image data holds more than the image's rows")
        #expect(problem(png(stored(row + [5] + row.dropFirst()))) == "PNG image data has a row with an unknown filter type")
        var checksum = stored(row + row)
        checksum[checksum.count - 1] ^= 1
        #expect(problem(png(checksum)) == "PNG image data does not inflate (the compressed data is damaged)")
        #expect(problem(png(Array(stored(row + row).dropLast(6)))) == "PNG image data ends before the image's last row")
        #expect(problem(png(stored(row + row) + [0, 0])) == "PNG image data has bytes after its compressed stream")
        #expect(problem(png(stored(row + row), height: 3)) == "PNG image data ends before the image's last row")
        #expect(problem(png(stored(row + row), height: 1)) == "PNG image data holds more than the image's rows")
    }
}
