import ScrollWire

/// `RoomRelay` for one node: each room's messages go straight to the sinks of its viewers
/// connected here. This is the server's fan-out: one encoded message per protocol version,
/// handed to every sink of that version.
@RoomActor public final class LocalRelay: RoomRelay {
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

/// One room's viewers on this node.
@RoomActor final class LocalChannel: RoomChannel {
    private var viewers: LocalViewers
    private var closed = false

    init(metrics: ServerMetrics) {
        viewers = LocalViewers(metrics: metrics)
    }

    func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool, complete: Bool,
                stream: ViewerStream, batchMs: Int) {
        guard !closed else { return }
        viewers.attach(viewer, sink: sink, version: version, watchesInputs: watchesInputs, complete: complete, stream: stream, batchMs: batchMs)
    }

    func detach(_ viewer: String) {
        viewers.detach(viewer)
    }

    // Through `inout` helpers: a struct stored in a class is copied out (its array and metrics
    // retained, then released) before a method is called on it, once per frame here.

    func send(_ message: RoomMessage, to audience: Audience) {
        Self.send(message, to: audience, through: &viewers)
    }

    func sendFrame(_ message: RoomMessage, sequence: UInt64) {
        Self.sendFrame(message, after: [], through: &viewers)
    }

    func sendFrame(_ message: RoomMessage, sequence: UInt64, after leading: [LeadingMessage]) {
        Self.sendFrame(message, after: leading, through: &viewers)
    }

    private static func send(_ message: RoomMessage, to audience: Audience, through viewers: inout LocalViewers) {
        viewers.send(message, to: audience)
    }

    private static func sendFrame(_ message: RoomMessage, after leading: [LeadingMessage], through viewers: inout LocalViewers) {
        viewers.sendFrame(message, after: leading)
    }

    func close() {
        closed = true
        viewers.removeAll()
    }
}
