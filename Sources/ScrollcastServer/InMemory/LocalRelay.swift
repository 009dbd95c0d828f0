import ScrollWire

/// `RoomRelay` for one node: each room's messages go straight to the sinks of its viewers
/// connected here. This is the server's fan-out: one encoded message per protocol version,
/// handed to every sink of that version.
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
    private var viewers: [(id: String, sink: ViewerSink, version: WireVersion)] = []
    private var closed = false

    init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    func attach(_ viewer: String, sink: ViewerSink, version: WireVersion) {
        guard !closed else { return }
        viewers.append((viewer, sink, version))
    }

    func detach(_ viewer: String) {
        viewers.removeAll { $0.id == viewer }
    }

    func send(_ message: RoomMessage, to audience: Audience) {
        var bytes = 0
        for viewer in viewers where audience.includes(viewer.id) {
            guard let form = message[viewer.version] else { continue }
            viewer.sink.sendReliable(form)
            bytes += form.count
        }
        if bytes > 0 { metrics.bytesOut.increment(by: bytes) }
    }

    func sendFrame(_ message: RoomMessage, sequence: UInt64) {
        guard !viewers.isEmpty else { return }
        // Counters once per frame, not once per viewer: at a thousand viewers the per-viewer
        // increments were a visible share of the fan-out loop.
        var skipped = 0, sent = 0, bytes = 0
        for viewer in viewers {
            guard let form = message[viewer.version] else { continue }
            if viewer.sink.sendLatest(form) { skipped += 1 }
            sent += 1
            bytes += form.count
        }
        if skipped > 0 { metrics.framesSkipped.increment(by: skipped) }
        metrics.framesSent.increment(by: sent)
        metrics.bytesOut.increment(by: bytes)
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
