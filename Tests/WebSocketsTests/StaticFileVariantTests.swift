import Foundation
import Testing
@testable import WebSockets

@Suite("Static files: compressed copies and validators")
struct StaticFileVariantTests {
    @Test("Accept-Encoding: each coding's quality, its own entry first, then *, else 0")
    func acceptEncoding() {
        let browser = AcceptEncoding("gzip, deflate, br, zstd")
        #expect(browser.quality(.br) == 1 && browser.quality(.gzip) == 1)
        let weighted = AcceptEncoding(" br;q=0.5 , GZIP ;q=0.8")
        #expect(weighted.quality(.br) == 0.5 && weighted.quality(.gzip) == 0.8)
        #expect(AcceptEncoding("*;q=0.3, br;q=0").quality(.br) == 0)
        #expect(AcceptEncoding("*;q=0.3, br;q=0").quality(.gzip) == 0.3)
        #expect(AcceptEncoding("x-gzip").quality(.gzip) == 1)
        #expect(AcceptEncoding("identity").quality(.gzip) == 0)
        #expect(AcceptEncoding("gzip;q=nonsense").quality(.gzip) == 0)
        #expect(AcceptEncoding("gzip;q=7").quality(.gzip) == 1)
    }

    @Test("the copy goes when accepted and fresh; the plain file when it is missing, stale or refused")
    func choice() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("variants-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let public_ = folder.appendingPathComponent("public"), encoded = folder.appendingPathComponent("encoded")
        try FileManager.default.createDirectory(at: public_, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: encoded, withIntermediateDirectories: true)
        try Data(repeating: 65, count: 1000).write(to: public_.appendingPathComponent("a.js"))
        try Data(repeating: 1, count: 20).write(to: encoded.appendingPathComponent("a.js.gz"))
        let files = try StaticFiles(directory: public_.path, encodedDirectory: encoded.path)
        let file = try #require(files.resolve("/a.js"))
        func choose(_ accept: String?) -> StaticFileVariant? {
            StaticFileVariant.choose(for: file, root: files.root, encodedRoot: files.encodedRoot, acceptEncoding: accept)
        }
        let plain = try #require(choose(nil))
        #expect(plain.coding == nil && plain.size == 1000 && plain.path == file.path)
        let gzip = try #require(choose("br, gzip"))   // no .br copy: the gzip one
        #expect(gzip.coding == .gzip && gzip.size == 20 && gzip.entityTag != plain.entityTag)
        #expect(gzip.entityTag.hasSuffix("-gzip\""))
        #expect(choose("br")?.coding == nil)

        // The file changes after its copy was made: the copy is stale, and the tag moves on.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: public_.appendingPathComponent("a.js").path)
        let changed = try #require(choose("gzip"))
        #expect(changed.coding == nil && changed.entityTag != plain.entityTag)
        // Made again (newer than the file): sent again.
        try FileManager.default.setAttributes([.modificationDate: later.addingTimeInterval(1)],
                                              ofItemAtPath: encoded.appendingPathComponent("a.js.gz").path)
        #expect(choose("gzip")?.coding == .gzip)
    }

    @Test("If-None-Match: any listed tag, weakly compared; * matches")
    func ifNoneMatch() {
        let variant = StaticFileVariant(path: "/x", coding: .br, size: 1, entityTag: "\"3e-17-br\"")
        #expect(StaticFileVariant.ifNoneMatch("\"3e-17-br\"", names: variant.entityTag))
        #expect(StaticFileVariant.ifNoneMatch("\"a\", W/\"3e-17-br\"", names: variant.entityTag))
        #expect(StaticFileVariant.ifNoneMatch("*", names: variant.entityTag))
        #expect(!StaticFileVariant.ifNoneMatch("\"3e-17\"", names: variant.entityTag))
        #expect(!StaticFileVariant.ifNoneMatch("3e-17-br", names: variant.entityTag))
    }
}
