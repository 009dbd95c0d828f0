import WebSockets

/// Where a room sends one viewer's messages. The WebSocket server implements it over a
/// connection; tests implement it in memory. Called only on the thread that owns the room.
public protocol ViewerSink: AnyObject {
    /// Queues a message that must arrive (snapshot, rowMoved, presence, refused, error).
    func sendReliable(_ message: OutboundMessage)
    /// Offers a frame that may be replaced by a newer one before it is written. Returns true when
    /// it replaced an unsent frame (that frame was skipped for this viewer).
    func sendLatest(_ message: OutboundMessage) -> Bool
    /// Closes the viewer's connection with a WebSocket close code and reason.
    func close(code: WebSockets.CloseCode, reason: String)
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
