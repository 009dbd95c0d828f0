import ScrollcastRooms
import ScrollWire

/// What a room's channel needs of its node: a way to publish, and whether the room's lease can
/// be trusted right now.
@RoomActor protocol RoomPublishing: AnyObject {
    /// Publishes `envelope` on the room's channel under `lease` (frames record their seq).
    func publish(_ envelope: RelayEnvelope, under lease: RoomLease)
    /// False while this node cannot be sure it still holds `lease`: its connection to Redis is
    /// up but the lease has not been renewed for most of its length (the process was frozen,
    /// say). Messages wait then, and go out only if the renewal succeeds.
    func mayDeliver(under lease: RoomLease) -> Bool
    /// This node's id.
    var nodeID: String { get }
}

/// A room's channel when the room runs here in a cluster: viewers connected here get each
/// message directly, and viewers on other nodes get it through one publish on the room's Redis
/// channel, in the forms they speak, stamped with the lease's epoch.
final class ClusterChannel: RoomChannel {
    let lease: RoomLease
    private unowned let node: RoomPublishing
    private let metrics: ClusterMetrics
    private let wallClock: WallClock
    private var local: LocalViewers
    /// Viewers on other nodes, with the version and stream each takes: nothing is written
    /// through them, they say which forms a publish needs, and whether it is needed at all (a
    /// frame only while one of them takes frames; a batch or beat only while one takes inputs).
    private var remote: LocalViewers
    private var held: [Held] = []
    private var closed = false

    /// Messages kept while the lease is in doubt; past this, frames are dropped (reliable
    /// messages are kept, and the renewal or the step-down settles them).
    static let mostHeldFrames = 600

    private enum Held {
        case reliable(RoomMessage, Audience)
        case frame(RoomMessage, UInt64)
        case notice(RelayEnvelope.Kind, Audience)
    }

    init(lease: RoomLease, node: RoomPublishing, metrics: ClusterMetrics, serverMetrics: ServerMetrics,
         wallClock: @escaping WallClock) {
        self.lease = lease
        self.node = node
        self.metrics = metrics
        self.wallClock = wallClock
        self.local = LocalViewers(metrics: serverMetrics)
        self.remote = LocalViewers(metrics: serverMetrics)
    }

    func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool, complete: Bool,
                stream: ViewerStream, batchMs: Int) {
        guard !closed else { return }
        if sink is RemoteViewerSink {
            remote.attach(viewer, sink: sink, version: version, watchesInputs: watchesInputs, complete: complete, stream: stream, batchMs: batchMs)
        } else {
            local.attach(viewer, sink: sink, version: version, watchesInputs: watchesInputs, complete: complete, stream: stream, batchMs: batchMs)
        }
    }

    func detach(_ viewer: String) {
        remote.detach(viewer)
        local.detach(viewer)
    }

    func send(_ message: RoomMessage, to audience: Audience) {
        pass(.reliable(message, audience))
    }

    func sendFrame(_ message: RoomMessage, sequence: UInt64) {
        pass(.frame(message, sequence))
    }

    /// Tells the nodes of `audience` something that has no forms (`.movedToFrames`), in order with
    /// the messages around it.
    func announce(_ kind: RelayEnvelope.Kind, to audience: Audience) {
        pass(.notice(kind, audience))
    }

    /// The lease can be trusted again (renewed): what waited goes out, in order.
    func resume() {
        guard !held.isEmpty else { return }
        let waiting = held
        held = []
        for entry in waiting { out(entry) }
    }

    /// Sends `entry` now, or keeps it while the lease is in doubt (frames up to `mostHeldFrames`).
    private func pass(_ entry: Held) {
        guard !closed else { return }
        guard node.mayDeliver(under: lease) else {
            if case .frame = entry, held.count >= Self.mostHeldFrames { return }
            held.append(entry)
            return
        }
        resume()
        out(entry)
    }

    private func out(_ entry: Held) {
        switch entry {
        case let .reliable(message, audience): deliver(message, to: audience)
        case let .frame(message, sequence): deliverFrame(message, sequence: sequence)
        case let .notice(kind, audience): publishNotice(kind, to: audience)
        }
    }

    func close() {
        closed = true
        held = []
        local.removeAll()
        remote.removeAll()
    }

    private func deliver(_ message: RoomMessage, to audience: Audience) {
        local.send(message, to: audience)
        let versions = remote.versions(reached: audience)
        guard !versions.isEmpty else { return }
        publish(.reliable, message, versions: versions, audience: audience)
        if audience.isInputsStream { metrics.streamMessagesPublished.increment() }
    }

    private func deliverFrame(_ message: RoomMessage, sequence: UInt64) {
        local.sendFrame(message)
        let versions = remote.frameVersions
        guard !versions.isEmpty else { return }
        publish(.frame, message, versions: versions, audience: .everyone, sequence: sequence)
        metrics.framesPublished.increment()
    }

    private func publishNotice(_ kind: RelayEnvelope.Kind, to audience: Audience) {
        node.publish(RelayEnvelope(kind: kind, epoch: lease.epoch, publishedAt: wallClock(), node: node.nodeID,
                                   audience: audience), under: lease)
    }

    private func publish(_ kind: RelayEnvelope.Kind, _ message: RoomMessage, versions: Set<WireVersion>,
                         audience: Audience, sequence: UInt64 = 0) {
        let envelope = RelayEnvelope(
            kind: kind, epoch: lease.epoch, sequence: sequence, publishedAt: wallClock(), node: node.nodeID,
            audience: audience,
            v1: versions.contains(.v1) ? message.v1?.bytes : nil,
            v2: versions.contains(.v2) ? message.v2?.bytes : nil)
        guard envelope.v1 != nil || envelope.v2 != nil else { return }
        node.publish(envelope, under: lease)
    }
}

/// `RoomRelay` of a cluster node: each room run here gets a `ClusterChannel`, which the node
/// finds again to release what waited once a lease is renewed.
final class ClusterRelay: RoomRelay {
    private unowned let node: RoomPublishing
    private let metrics: ClusterMetrics
    private let serverMetrics: ServerMetrics
    private let wallClock: WallClock
    private var channels: [String: Weak] = [:]

    private struct Weak { weak var channel: ClusterChannel? }

    init(node: RoomPublishing, metrics: ClusterMetrics, serverMetrics: ServerMetrics, wallClock: @escaping WallClock) {
        self.node = node
        self.metrics = metrics
        self.serverMetrics = serverMetrics
        self.wallClock = wallClock
    }

    func openChannel(for lease: RoomLease) -> RoomChannel {
        let channel = ClusterChannel(lease: lease, node: node, metrics: metrics, serverMetrics: serverMetrics,
                                     wallClock: wallClock)
        // Channels of rooms gone from memory are dropped here, so the table tracks live rooms.
        channels = channels.filter { $0.value.channel != nil }
        channels[lease.room] = Weak(channel: channel)
        return channel
    }

    /// The open channel of room `room`, if it runs here.
    func channel(of room: String) -> ClusterChannel? {
        channels[room]?.channel
    }
}
