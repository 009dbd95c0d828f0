/// Where a Redis server listens: `redis://HOST[:PORT][/DB]`.
///
/// HOST is a name or IPv4 address, or an IPv6 address in brackets (`redis://[::1]:6379`). PORT
/// defaults to 6379 and DB to 0. Credentials, query strings and fragments are refused rather than
/// ignored, so a URL never means more than this type acts on.
public struct RedisAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port, 1...65535.
    public var port: Int
    /// The database selected after every connect (`SELECT`), 0 or more.
    public var database: Int

    /// The port used when the URL names none.
    public static let defaultPort = 6379

    /// An address from its parts, unchecked (for callers that already hold validated values).
    public init(host: String, port: Int = RedisAddress.defaultPort, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `redis://HOST[:PORT][/DB]`.
    /// - Throws: ``RedisError`` naming the URL and what is wrong with it.
    public init(url: String) throws(RedisError) {
        func failure(_ problem: String) -> RedisError {
            RedisError(.invalidAddress, "Redis address '\(url)' \(problem) (expected redis://HOST[:PORT][/DB])")
        }
        let scheme = "redis://"
        guard url.lowercased().hasPrefix(scheme) else {
            throw failure("does not start with \(scheme)")
        }
        let rest = url.dropFirst(scheme.count)
        if rest.contains("@") { throw failure("holds credentials, which are not supported") }
        if rest.contains("?") || rest.contains("#") {
            throw failure("has a query or fragment, which is not supported")
        }

        let authority: Substring
        let databaseText: Substring?
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            databaseText = rest[rest.index(after: slash)...]
        } else {
            authority = rest
            databaseText = nil
        }

        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw failure("has an IPv6 host without its closing ']'")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let afterHost = authority[authority.index(after: close)...]
            if afterHost.isEmpty {
                portText = nil
            } else if afterHost.hasPrefix(":") {
                portText = afterHost.dropFirst()
            } else {
                throw failure("has '\(afterHost)' after the IPv6 host where ':PORT' belongs")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
            portText = nil
        }
        guard !host.isEmpty else { throw failure("has no host") }

        var port = Self.defaultPort
        if let portText {
            guard let parsed = Self.decimal(portText), (1...65535).contains(parsed) else {
                throw failure("has a bad port '\(portText)' (a number 1-65535)")
            }
            port = parsed
        }

        var database = 0
        // A bare trailing slash names no database, as in redis://host:6379/.
        if let databaseText, !databaseText.isEmpty {
            guard let parsed = Self.decimal(databaseText) else {
                throw failure("has a bad database '\(databaseText)' (a number 0 or more)")
            }
            database = parsed
        }
        self.init(host: String(host), port: port, database: database)
    }

    /// Digits only: Int(_:) alone would accept a sign ("+5", "-1").
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    /// The address as a URL, e.g. `redis://127.0.0.1:6379/0`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(shownHost):\(port)/\(database)"
    }
}
