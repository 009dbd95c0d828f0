/// Where the server is, taken apart from `--url` (`ws://HOST:PORT/PATH`).
struct ServerAddress: Sendable, Equatable {
    var host: String
    var port: Int
    var path: String

    /// Why a `--url` was not accepted.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(url: String) throws {
        guard url.hasPrefix("ws://") else {
            throw Invalid(description: "--url must start with ws:// (got \"\(url)\"); TLS (wss://) is not supported by the load generator")
        }
        let rest = url.dropFirst("ws://".count)
        let authority = rest.prefix { $0 != "/" }
        path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        if authority.hasPrefix("[") {
            // [IPv6]:port
            guard let close = authority.firstIndex(of: "]") else {
                throw Invalid(description: "--url has an unterminated [IPv6] host: \(url)")
            }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            port = after.isEmpty ? 80 : try Self.parsePort(after.dropFirst(), url: url)
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = try Self.parsePort(authority[authority.index(after: colon)...], url: url)
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty else { throw Invalid(description: "--url has no host: \(url)") }
    }

    private static func parsePort(_ text: Substring, url: String) throws -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw Invalid(description: "--url has an invalid port \"\(text)\": \(url)")
        }
        return port
    }

    /// `host:port` with IPv6 hosts bracketed, for URLs and messages.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The WebSocket URL, normalised.
    var webSocketURL: String { "ws://\(authority)\(path)" }

    /// The server's Prometheus endpoint on the same host and port.
    var metricsURL: String { "http://\(authority)/metrics" }
}
