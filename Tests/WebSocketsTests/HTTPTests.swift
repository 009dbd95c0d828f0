import Foundation
import Testing
@testable import WebSockets

@Suite("HTTP on the WebSocket port")
struct HTTPTests {
    /// A temp tree: <base>/secret.txt outside, <base>/public inside with every page file type.
    final class Tree {
        let base: String
        var publicDirectory: String { base + "/public" }
        static let files: [(String, String)] = [
            ("index.html", "text/html; charset=utf-8"), ("style.css", "text/css; charset=utf-8"),
            ("app.js", "text/javascript; charset=utf-8"), ("mod.mjs", "text/javascript; charset=utf-8"),
            ("icon.svg", "image/svg+xml"), ("pic.png", "image/png"), ("data.json", "application/json"),
            ("favicon.ico", "image/x-icon"), ("notes.txt", "text/plain; charset=utf-8"),
            ("img.webp", "image/webp"), ("font.woff2", "font/woff2"), ("blob.unknownext", "application/octet-stream"),
        ]

        init() throws {
            base = NSTemporaryDirectory() + "ws-http-\(UUID().uuidString)"
            let fm = FileManager.default
            try fm.createDirectory(atPath: base + "/public/sub", withIntermediateDirectories: true)
            try "TOP SECRET".write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
            for (name, _) in Tree.files {
                try "content of \(name)".write(toFile: "\(publicDirectory)/\(name)", atomically: true, encoding: .utf8)
            }
            try "sub index".write(toFile: publicDirectory + "/sub/index.html", atomically: true, encoding: .utf8)
            try fm.createSymbolicLink(atPath: publicDirectory + "/leak.txt", withDestinationPath: base + "/secret.txt")
            try fm.createSymbolicLink(atPath: publicDirectory + "/outside", withDestinationPath: base)
            try fm.createSymbolicLink(atPath: publicDirectory + "/inside.txt", withDestinationPath: publicDirectory + "/notes.txt")
        }

        deinit { try? FileManager.default.removeItem(atPath: base) }
    }

    private func start(_ tree: Tree) throws -> Harness {
        try Harness(configure: { $0.publicDirectory = tree.publicDirectory }, setup: { delegate in
            delegate.routes["/healthz"] = HTTPResponse(text: "ok", headers: [("cache-control", "no-store")])
            delegate.routes["/index.html"] = nil
        })
    }

    @Test func indexIsServedAtRoot() throws {
        let tree = try Tree()
        let h = try start(tree)
        defer { h.stop() }
        let response = try httpGet(port: h.port, "/")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/html; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == "content of index.html")
        let sub = try httpGet(port: h.port, "/sub/")
        #expect(String(decoding: sub.body, as: UTF8.self) == "sub index")
    }

    @Test func everyPageFileTypeHasTheRightContentType() throws {
        let tree = try Tree()
        let h = try start(tree)
        defer { h.stop() }
        for (name, type) in Tree.files {
            let response = try httpGet(port: h.port, "/" + name)
            #expect(response.status == 200, "\(name)")
            #expect(response.headers["content-type"] == type, "\(name)")
            #expect(String(decoding: response.body, as: UTF8.self) == "content of \(name)", "\(name)")
        }
    }

    @Test func missingFilesAre404() throws {
        let tree = try Tree()
        let h = try start(tree)
        defer { h.stop() }
        #expect(try httpGet(port: h.port, "/nope.html").status == 404)
        #expect(try httpGet(port: h.port, "/sub/nope").status == 404)
    }

    @Test func nothingOutsideThePublicDirectoryIsServed() throws {
        let tree = try Tree()
        let h = try start(tree)
        defer { h.stop() }
        let attempts = [
            "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/sub/../../secret.txt",
            "/sub/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "//../secret.txt",
            "/leak.txt", "/outside/secret.txt", "/outside/public/index.html",
        ]
        for path in attempts {
            let response = try httpGet(port: h.port, path)
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(!body.contains("TOP SECRET"), "\(path)")
            #expect(response.status != 200 || body == "content of index.html", "\(path) → \(response.status)")
        }
        #expect(try httpGet(port: h.port, "/leak.txt").status == 404)
        // A symlink that stays inside is fine.
        #expect(try httpGet(port: h.port, "/inside.txt").status == 200)
    }

    @Test func dynamicRoutesComeFirst() throws {
        let tree = try Tree()
        let h = try start(tree)
        defer { h.stop() }
        let response = try httpGet(port: h.port, "/healthz")
        #expect(response.status == 200)
        #expect(response.headers["cache-control"] == "no-store")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == "ok")
        #expect(try httpGet(port: h.port, "/healthz?verbose=1").status == 200)
    }

    @Test func withoutPublicDirectoryEverythingIs404() throws {
        let h = try Harness()
        defer { h.stop() }
        #expect(try httpGet(port: h.port, "/").status == 404)
        #expect(try httpGet(port: h.port, "/ws").status == 404)
    }

    @Test func headersOverTheLimitAreAnswered431AndTheLimitItselfIsFine() throws {
        let tree = try Tree()
        let h = try start(tree)
        defer { h.stop() }
        let limit = WebSocketServerConfiguration(subprotocols: ["x"], maxMessageBytes: 1).maxHTTPHeaderBytes
        for padding in [9000, 20_000, 50_000] {
            let huge = "X-Padding: " + String(repeating: "a", count: padding) + "\r\n"
            #expect(try httpGet(port: h.port, "/index.html", extraHeaders: huge).status == 431, "\(padding) bytes")
        }
        let within = "X-Padding: " + String(repeating: "a", count: limit - 200) + "\r\n"
        #expect(try httpGet(port: h.port, "/index.html", extraHeaders: within).status == 200)
        // The server is still healthy afterwards.
        #expect(try httpGet(port: h.port, "/index.html").status == 200)
    }
}
