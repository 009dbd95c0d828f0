import ScrollWire

/// Why the server closes a viewer: a close code from the protocol and a reason for people.
public struct CloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The WebSocket close code.
    public var code: CloseCode
    /// The reason, at most 123 bytes of UTF-8 (all a close frame holds), cut at a character
    /// boundary if longer.
    public var reason: String

    /// A close reason; `reason` is cut to fit a close frame.
    public init(_ code: CloseCode, _ reason: String) {
        self.code = code
        self.reason = reason.truncatedUTF8()
    }

    /// Closing over a protocol error: the error's own close code and message.
    public init(_ error: WireError) {
        self.init(error.closeCode, error.message)
    }

    /// "1008 reason", for logs.
    public var description: String { "\(code) \(reason)" }
}

extension String {
    /// This string cut to at most `maxBytes` of UTF-8 without splitting a character
    /// (a WebSocket close reason may hold 123 bytes).
    func truncatedUTF8(maxBytes: Int = 123) -> String {
        guard utf8.count > maxBytes else { return self }
        var result = ""
        var used = 0
        for character in self {
            let size = character.utf8.count
            if used + size > maxBytes { break }
            result.append(character)
            used += size
        }
        return result
    }
}
