import Foundation
import Testing
@testable import WebSockets

@Suite("Static files: content versions in pages")
struct VersionedPageTests {
    /// A folder with a page and the files it may name; removed by the caller.
    private func site() throws -> (folder: URL, files: StaticFiles) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("versions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("body { }".utf8).write(to: folder.appendingPathComponent("a.css"))
        try Data("export {};".utf8).write(to: folder.appendingPathComponent("js/b.js"))
        try Data("<p>other</p>".utf8).write(to: folder.appendingPathComponent("other.html"))
        return (folder, try StaticFiles(directory: folder.path))
    }

    @Test("a version names the bytes: the same bytes the same version, and a change is seen without a restart")
    func versions() throws {
        let (folder, files) = try site()
        defer { try? FileManager.default.removeItem(at: folder) }
        var versions = StaticFileVersions()
        let path = try #require(files.resolve("/a.css")).path
        let firstAnswer = versions.version(of: path)
        let first = try #require(firstAnswer)
        #expect(first.count == 16 && first.allSatisfy(\.isHexDigit))
        #expect(first == StaticFileVersions.digest(Array("body { }".utf8)))
        try Data("body { color: red }".utf8).write(to: folder.appendingPathComponent("a.css"))
        let secondAnswer = versions.version(of: path)
        let second = try #require(secondAnswer)
        #expect(second != first)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("a.css"))
        let gone = versions.version(of: path)
        #expect(gone == nil)
        #expect(StaticFileVersions.requested(in: "room=x&v=abc") == "abc")
        #expect(StaticFileVersions.requested(in: "room=x&vv=abc") == nil)
    }

    @Test("src and href naming a served file get its version; other names, and other pages, are left")
    func rewrite() throws {
        let (folder, files) = try site()
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = """
            <link rel="stylesheet" href="a.css">
            <script type="module" src="js/b.js" onerror="import('./js/b.js')"></script>
            <script src="/js/b.js"></script><a href="other.html">x</a> <a href="?room=a">y</a>
            <a href="https://example.com/a.css">z</a> <img src="missing.png"> <a href="a.css?x=1">w</a>
            <p data-src="a.css">src="a.css"</p> <a href="js/">d</a>
            """
        let page = StaticFiles.File(path: files.root + "/index.html", contentType: "text/html; charset=utf-8")
        let versioned = VersionedPage(html: Array(html.utf8), page: page, files: files) { "v-" + ($0.path.hasSuffix(".css") ? "css" : "js") }
        #expect(String(decoding: versioned.body, as: UTF8.self) == """
            <link rel="stylesheet" href="a.css?v=v-css">
            <script type="module" src="js/b.js?v=v-js" onerror="import('./js/b.js')"></script>
            <script src="/js/b.js?v=v-js"></script><a href="other.html">x</a> <a href="?room=a">y</a>
            <a href="https://example.com/a.css">z</a> <img src="missing.png"> <a href="a.css?x=1">w</a>
            <p data-src="a.css">src="a.css"</p> <a href="js/">d</a>
            """)
        // The tag follows the body: another version of a named file, another tag.
        let again = VersionedPage(html: Array(html.utf8), page: page, files: files) { _ in "other" }
        #expect(again.entityTag != versioned.entityTag && versioned.entityTag.hasPrefix("\"p-"))
        #expect(VersionedPage(html: Array(html.utf8), page: page, files: files) { "v-" + ($0.path.hasSuffix(".css") ? "css" : "js") }
            .entityTag == versioned.entityTag)
    }
}
