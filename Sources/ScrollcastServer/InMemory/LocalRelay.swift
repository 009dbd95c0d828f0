/// `RoomRelay` for one node: each room's messages go straight to the sinks of its viewers
/// connected here. This is the server's fan-out: one encoded message, handed to every sink.
public final class LocalRelay: RoomRelay {
    private let metrics: ServerMetrics

    /// A relay counting what it hands out in `metrics`.
    public init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    /// A channel delivering to the viewers attached to it.
    public func openChannel(for lease: RoomLease) -> RoomChannel {
        LocalChannel(metrics: metrics)
    }
}

/// One room's viewers on this node, in join order.
final class LocalChannel: RoomChannel {
    private let metrics: ServerMetrics
    private var viewers: [(id: String, sink: ViewerSink)] = []
    private var closed = false

    init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    func attach(_ viewer: String, sink: ViewerSink) {
        guard !closed else { return }
        viewers.append((viewer, sink))
    }

    func detach(_ viewer: String) {
        viewers.removeAll { $0.id == viewer }
    }

    func send(_ message: OutgoingMessage, to audience: Audience) {
        var sent = 0
        for viewer in viewers where audience.includes(viewer.id) {
            viewer.sink.sendReliable(message)
            sent += 1
        }
        if sent > 0 { metrics.bytesOut.increment(by: message.count * sent) }
    }

    func sendFrame(_ message: OutgoingMessage) {
        guard !viewers.isEmpty else { return }
        // Counters once per frame, not once per viewer: at a thousand viewers the per-viewer
        // increments were a visible share of the fan-out loop.
        var skipped = 0
        for viewer in viewers where viewer.sink.sendLatest(message) { skipped += 1 }
        if skipped > 0 { metrics.framesSkipped.increment(by: skipped) }
        metrics.framesSent.increment(by: viewers.count)
        metrics.bytesOut.increment(by: message.count * viewers.count)
    }

    func close() {
        closed = true
        viewers.removeAll()
    }
}

extension Audience {
    /// Whether a message for this audience goes to `viewer`.
    func includes(_ viewer: String) -> Bool {
        switch self {
        case .viewer(let id): return id == viewer
        case .everyone: return true
        case .everyoneExcept(let id): return id != viewer
        }
    }
}
