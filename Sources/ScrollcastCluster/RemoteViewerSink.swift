import ScrollcastRooms

/// How a room run here holds a viewer connected to another node: the room's channel sees this
/// sink and publishes instead of writing. Nothing is written through it directly.
final class RemoteViewerSink: ViewerSink {
    /// The node the viewer is connected to.
    let node: String

    init(node: String) {
        self.node = node
    }

    func sendReliable(_ message: OutgoingMessage) {}
    func sendLatest(_ message: OutgoingMessage) -> Bool { false }
    /// The viewer's own node closes it; an owner never closes remote viewers.
    func close(_ reason: CloseReason) {}
}
