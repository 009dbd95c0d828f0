/// A parsed ws:// URL.
struct WebSocketURL: Equatable {
    let host: String
    let port: Int
    /// Path plus "?query" if any; always starts with "/".
    let pathAndQuery: String

    /// Parses ws://host[:port][/path][?query]; throws `.malformedURL` with the reason.
    init(_ text: String) throws {
        func fail(_ why: String) -> WebSocketError { WebSocketError(.malformedURL, "malformed WebSocket URL '\(text)': \(why)") }
        if text.lowercased().hasPrefix("wss://") { throw fail("wss:// (TLS) is not supported") }
        guard text.lowercased().hasPrefix("ws://") else { throw fail("it must start with ws://") }
        let rest = text.dropFirst(5)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = String(rest[authorityEnd...])
        if let hash = tail.firstIndex(of: "#") { tail = String(tail[..<hash]) }
        if tail.isEmpty || tail.hasPrefix("?") { tail = "/" + tail }
        guard !authority.isEmpty else { throw fail("the host is missing") }
        guard !authority.contains("@") else { throw fail("user information is not supported") }
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("unterminated IPv6 address") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 address") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw fail("the host is missing") }
        var port = 80
        if let portPart {
            guard let number = Int(portPart), (1...65535).contains(number) else { throw fail("bad port '\(portPart)'") }
            port = number
        }
        guard !tail.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else { throw fail("whitespace in the path") }
        host = String(hostPart)
        self.port = port
        pathAndQuery = tail
    }
}
