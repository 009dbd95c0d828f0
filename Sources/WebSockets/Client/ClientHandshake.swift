internal import CLibWebSockets

/// The client side of the RFC 6455 opening handshake: the upgrade request to send, and a bounded
/// reader of the server's response that checks everything the client relies on.
struct ClientHandshake {
    /// What the response bytes seen so far amount to.
    enum Progress: Equatable {
        /// The header block is not complete yet.
        case incomplete
        /// A valid 101 response; bytes from `bodyOffset` of the latest chunk are WebSocket frames.
        case upgraded(bodyOffset: Int)
        /// The server refused or answered something unusable; the reason is for people.
        case failed(String)
    }

    /// Response header blocks larger than this fail the handshake.
    static let maxResponseBytes = 8 * 1024
    /// RFC 6455 §1.3: appended to the key before hashing.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The base64 Sec-WebSocket-Key sent.
    let key: String
    let subprotocol: String?
    private var received: [UInt8] = []

    /// `keyBytes` must be 16 random bytes (RFC 6455 §4.1).
    init(keyBytes: [UInt8], subprotocol: String?) {
        self.key = Base64.encode(keyBytes)
        self.subprotocol = subprotocol
    }

    /// The GET request, ending with the blank line.
    func request(hostHeader: String, pathAndQuery: String, origin: String?) -> [UInt8] {
        var text = "GET \(pathAndQuery) HTTP/1.1\r\n"
        text += "Host: \(hostHeader)\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        text += "Sec-WebSocket-Version: 13\r\n"
        if let subprotocol { text += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let origin { text += "Origin: \(origin)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The Sec-WebSocket-Accept a server must answer to `key`.
    static func expectedAccept(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + acceptGUID).utf8)))
    }

    /// Adds response bytes; once the header block is complete, judges it.
    mutating func feed(_ chunk: UnsafeRawBufferPointer) -> Progress {
        let before = received.count
        // Only the part that may hold the end of the header block is kept.
        let room = Self.maxResponseBytes + 4 - before
        received.append(contentsOf: chunk.prefix(max(0, room)))
        let searchFrom = max(0, before - 3)
        guard let end = Self.endOfHeaders(in: received, from: searchFrom) else {
            if received.count > Self.maxResponseBytes {
                return .failed("the server's handshake response is larger than \(Self.maxResponseBytes) bytes")
            }
            return .incomplete
        }
        guard end <= Self.maxResponseBytes else {
            return .failed("the server's handshake response is larger than \(Self.maxResponseBytes) bytes")
        }
        let headerBlock = received[..<end]
        received = []
        if let problem = judge(String(decoding: headerBlock, as: UTF8.self)) { return .failed(problem) }
        return .upgraded(bodyOffset: end - before)
    }

    /// Index just past "\r\n\r\n", if present.
    private static func endOfHeaders(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = start
        while i + 4 <= bytes.count {
            if bytes[i] == 13, bytes[i + 1] == 10, bytes[i + 2] == 13, bytes[i + 3] == 10 { return i + 4 }
            i += 1
        }
        return nil
    }

    /// Nil if the response upgrades as asked, else why not.
    private func judge(_ text: String) -> String? {
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).makeIterator()
        guard let statusLine = lines.next() else { return "the server sent an empty handshake response" }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else {
            return "the server did not answer with HTTP: \"\(statusLine.prefix(80))\""
        }
        guard parts[1] == "101" else {
            return "the server refused the upgrade: HTTP \(parts[1..<parts.count].joined(separator: " ").prefix(120))"
        }
        var headers: [String: [String]] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return "malformed header line in the handshake response" }
            let name = line[..<colon].trimmingSpaces().lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpaces())
            headers[name, default: []].append(value)
        }
        func single(_ name: String) -> String? { headers[name].map { $0.joined(separator: ", ") } }
        guard let upgrade = single("upgrade"), upgrade.lowercased() == "websocket" else {
            return "the handshake response lacks \"Upgrade: websocket\""
        }
        let connectionTokens = (single("connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces() }
        guard connectionTokens.contains("upgrade") else {
            return "the handshake response lacks \"Connection: upgrade\""
        }
        guard let accept = single("sec-websocket-accept") else {
            return "the handshake response lacks Sec-WebSocket-Accept"
        }
        guard accept == Self.expectedAccept(forKey: key) else {
            return "the handshake response has a wrong Sec-WebSocket-Accept"
        }
        if let extensions = single("sec-websocket-extensions"), !extensions.isEmpty {
            return "the server chose an extension the client did not offer (\(extensions.prefix(60)))"
        }
        let agreed = single("sec-websocket-protocol")
        switch (subprotocol, agreed) {
        case (nil, nil): return nil
        case (nil, let chosen?): return "the server chose subprotocol \"\(chosen.prefix(60))\" that the client did not offer"
        case (let asked?, nil): return "the server did not agree to subprotocol \"\(asked)\""
        case (let asked?, let chosen?):
            return asked == chosen ? nil : "the server chose subprotocol \"\(chosen.prefix(60))\" instead of \"\(asked)\""
        }
    }
}

private extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

/// Standard base64 with padding (RFC 4648 §4), for the handshake's key and accept values:
/// libwebsockets' encoder.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        // Four characters per three bytes, and the NUL lws writes; lws (4.1) also wants one more
        // byte than that free, or it refuses.
        var output = [CChar](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 2)
        let length = bytes.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { input in
                lws_b64_encode_string(input.baseAddress, Int32(input.count), &output, Int32(output.count))
            }
        }
        // Only a too-small output makes lws fail, and the size above is enough.
        precondition(length >= 0, "lws_b64_encode_string refused \(bytes.count) bytes")
        return String(decoding: output.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
