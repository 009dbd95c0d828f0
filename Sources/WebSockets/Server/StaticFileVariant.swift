import Glibc

/// How a static file goes out: which copy (the file itself, or a gzip or brotli copy made at
/// build time), with which validator. Copies live in a folder of their own (`encodedRoot`) under
/// the same relative path plus `.gz` or `.br`; one older than its file is stale and never served.
struct StaticFileVariant: Equatable {
    /// A content coding a copy may have.
    enum Coding: String, CaseIterable {
        // Preferred first when a client accepts both equally: brotli's copies are the smaller.
        case br, gzip

        /// The copy's file-name suffix.
        var suffix: String { self == .br ? ".br" : ".gz" }
    }

    /// The file whose bytes go out (the original or its copy).
    let path: String
    /// The copy's coding; nil: the original, sent as it is.
    let coding: Coding?
    /// Bytes in `path`.
    let size: Int
    /// A strong validator: the original's size and modification time (nanoseconds), and the
    /// coding, so a rebuilt file gets a new tag and each coding its own.
    let entityTag: String

    /// The variant of `file` for a request with `acceptEncoding` (nil: the header was absent),
    /// its copies looked for under `encodedRoot` (nil: none); nil if the file cannot be read now.
    static func choose(for file: StaticFiles.File, root: String, encodedRoot: String?, acceptEncoding: String?) -> StaticFileVariant? {
        guard let original = FileStatus(file.path) else { return nil }
        let tag = "\(String(original.size, radix: 16))-\(String(original.modifiedNanoseconds, radix: 16))"
        if let encodedRoot, let acceptEncoding, file.path.hasPrefix(root + "/") {
            let relative = file.path.dropFirst(root.count)
            let accepted = AcceptEncoding(acceptEncoding)
            let ranked = Coding.allCases.filter { accepted.quality($0) > 0 }
                .sorted { accepted.quality($0) > accepted.quality($1) }  // stable: ties keep br first
            for coding in ranked {
                let copy = encodedRoot + relative + coding.suffix
                // A copy made before the file last changed is stale: the plain file goes instead.
                guard let status = FileStatus(copy), status.isRegularFile,
                      status.modifiedNanoseconds >= original.modifiedNanoseconds else { continue }
                return StaticFileVariant(path: copy, coding: coding, size: status.size,
                                         entityTag: "\"\(tag)-\(coding.rawValue)\"")
            }
        }
        return StaticFileVariant(path: file.path, coding: nil, size: original.size, entityTag: "\"\(tag)\"")
    }

    /// Whether an `If-None-Match` header names `entityTag` (weak comparison, as RFC 9110 asks
    /// for this header: a `W/` prefix is ignored; `*` matches any).
    static func ifNoneMatch(_ header: String, names entityTag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            return tag == entityTag
        }
    }
}

/// A parsed `Accept-Encoding` header: each coding's quality (0 to 1).
struct AcceptEncoding {
    private var qualities: [String: Double] = [:]

    init(_ header: String) {
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingSpaces.lowercased(), !name.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(\.trimmingSpaces)
                if pair.count == 2, pair[0].lowercased() == "q" { quality = Double(pair[1]).map { min(max($0, 0), 1) } ?? 0 }
            }
            qualities[name] = quality
        }
    }

    /// The quality the client gives `coding`: its own entry, else `*`'s, else 0.
    func quality(_ coding: StaticFileVariant.Coding) -> Double {
        qualities[coding.rawValue] ?? (coding == .gzip ? qualities["x-gzip"] : nil) ?? qualities["*"] ?? 0
    }
}

/// What `stat` says about a path.
struct FileStatus {
    let size: Int
    let modifiedNanoseconds: Int
    let isRegularFile: Bool

    /// Nil if `path` cannot be stat'ed.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int(info.st_size)
        modifiedNanoseconds = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
