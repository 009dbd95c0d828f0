/// Where messages for one viewer go. The transport adapter implements it over a connection;
/// tests implement it in memory. Called only on the room thread.
@RoomActor public protocol ViewerSink: AnyObject {
    /// Queues a message that must arrive (snapshot, rowMoved, presence, refused, error).
    func sendReliable(_ message: OutgoingMessage)
    /// Offers a frame that may be replaced by a newer one before it is written. Returns true when
    /// it replaced an unsent frame (that frame was skipped for this viewer).
    func sendLatest(_ message: OutgoingMessage) -> Bool
    /// Queues `leading` reliably, in order, then offers frame `message`, so that they can leave
    /// together (one write when the transport can: `applied` messages with the frame that first
    /// shows them). Returns what `sendLatest` returns.
    func sendLatest(_ message: OutgoingMessage, after leading: [OutgoingMessage]) -> Bool
    /// Closes the viewer's connection.
    func close(_ reason: CloseReason)
}

extension ViewerSink {
    /// Each of `leading` with `sendReliable`, then the frame with `sendLatest`.
    public func sendLatest(_ message: OutgoingMessage, after leading: [OutgoingMessage]) -> Bool {
        for reliable in leading { sendReliable(reliable) }
        return sendLatest(message)
    }
}
