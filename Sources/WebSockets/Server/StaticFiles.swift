import Glibc

/// Maps request paths to files inside one folder, refusing anything that would leave it
/// (`..` in any spelling, symlinks pointing outside) and picking the content type.
struct StaticFiles: Sendable {
    /// The folder's canonical path (symlinks resolved), without a trailing slash.
    let root: String
    /// The canonical folder of compressed copies made at build time (`StaticFileVariant`); nil: none.
    let encodedRoot: String?

    /// Content types for every file type the page uses; anything else is served as octet-stream.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "json": "application/json",
        "map": "application/json",
        "svg": "image/svg+xml",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "ico": "image/x-icon",
        "txt": "text/plain; charset=utf-8",
        "woff2": "font/woff2",
        "woff": "font/woff",
        "wasm": "application/wasm",
    ]

    /// Fails with a clear error if `directory` is missing or not a folder. `encodedDirectory`
    /// holds gzip and brotli copies of its files; a missing one is no error (nothing is
    /// compressed until a build makes the copies).
    init(directory: String, encodedDirectory: String? = nil) throws {
        guard let canonical = StaticFiles.realPath(directory) else {
            throw WebSocketError(.badPublicDirectory, "public directory '\(directory)' does not exist or cannot be read")
        }
        guard StaticFiles.isDirectory(canonical) else {
            throw WebSocketError(.badPublicDirectory, "public directory '\(directory)' is not a directory")
        }
        root = canonical == "/" ? "" : canonical
        encodedRoot = encodedDirectory.flatMap(StaticFiles.realPath).flatMap { $0 == "/" ? nil : $0 }
    }

    /// A file to serve: its canonical path and content type.
    struct File: Equatable {
        let path: String
        let contentType: String
    }

    /// The file for a decoded request path, or nil (→ 404) if there is none or it lies outside.
    func resolve(_ requestPath: String) -> File? {
        guard requestPath.hasPrefix("/"), !requestPath.contains("\0"), !requestPath.contains("\\") else { return nil }
        // Empty components come from "//"; they are harmless once dropped.
        let components = requestPath.split(separator: "/", omittingEmptySubsequences: true)
        for component in components where component == ".." || component == "." {
            return nil
        }
        var candidate = root + "/" + components.joined(separator: "/")
        if components.isEmpty || StaticFiles.isDirectory(candidate) {
            candidate += candidate.hasSuffix("/") ? "index.html" : "/index.html"
        }
        // The canonical path must still be inside the root: this is what stops symlink escapes.
        guard let canonical = StaticFiles.realPath(candidate), canonical.hasPrefix(root + "/"),
              StaticFiles.isRegularFile(canonical)
        else { return nil }
        return File(path: canonical, contentType: StaticFiles.contentType(for: canonical))
    }

    /// Content type from the file extension (case-insensitive).
    static func contentType(for path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        let ext = name[name.index(after: dot)...].lowercased()
        return contentTypes[ext] ?? "application/octet-stream"
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The first `count` bytes of the file at `path`; nil if it cannot be read that far.
    static func read(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
