/// Content versions of static files, for URLs a browser may keep for good (`NAME?v=VERSION`,
/// docs/design.md, "Static files"): a version names the bytes, so a file that changes gets a new
/// URL and a file rebuilt to the same bytes keeps its cached copy.
struct StaticFileVersions {
    private struct Known {
        let size: Int
        let modifiedNanoseconds: Int
        let version: String
    }

    /// One entry per file asked about; a file is read and hashed again only when its size or
    /// modification time changed, so a new build is seen on the next request without a restart.
    private var known: [String: Known] = [:]

    /// The version of the file at `path`: the first 16 hex digits of the SHA-1 of its content
    /// (a name for the bytes, not a security measure); nil if it cannot be read now.
    mutating func version(of path: String) -> String? {
        guard let status = FileStatus(path), status.isRegularFile else {
            known[path] = nil
            return nil
        }
        if let entry = known[path], entry.size == status.size, entry.modifiedNanoseconds == status.modifiedNanoseconds {
            return entry.version
        }
        guard let bytes = StaticFiles.read(path, count: status.size) else { return nil }
        let version = StaticFileVersions.digest(bytes)
        known[path] = Known(size: status.size, modifiedNanoseconds: status.modifiedNanoseconds, version: version)
        return version
    }

    /// The cache policy of a file asked for by its current version: its bytes never change.
    static let immutable = "public, max-age=31536000, immutable"

    /// The version a request's query asks for (`v=…`; lws has decoded it), if any.
    static func requested(in query: String) -> String? {
        query.split(separator: "&").first { $0.hasPrefix("v=") }.map { String($0.dropFirst(2)) }
    }

    /// The first 16 hex digits of the SHA-1 of `bytes`.
    static func digest(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(SHA1.hash(bytes).prefix(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
