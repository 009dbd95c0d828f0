import ScrollcastServer

/// A viewer's connection in memory: records everything the room layer writes to it, in order,
/// and how it was closed. Frames are written at once (a connection that keeps up).
public final class RecordingViewerSink: ViewerSink {
    /// Everything received in order: reliable messages and frames.
    public private(set) var received: [OutgoingMessage] = []
    /// How the room layer closed the connection, if it did.
    public private(set) var closedWith: CloseReason?

    /// An empty sink.
    public init() {}

    public func sendReliable(_ message: OutgoingMessage) { received.append(message) }

    public func sendLatest(_ message: OutgoingMessage) -> Bool {
        received.append(message)
        return false
    }

    public func close(_ reason: CloseReason) { closedWith = reason }

    /// Forgets what was received so far.
    public func clear() { received.removeAll() }
}
