import Logging
import ScrollEngine
import ScrollWire

/// Everything between a viewer's connection and its room, without the network: the join
/// handshake and its deadline, message decoding and protocol errors, the viewer and room limits
/// and the input rate limit. A transport adapter forwards its events here; tests drive it with
/// in-memory sinks.
@RoomActor public final class ViewerHub {
    private let limits: ServerLimits
    private let clock: RoomClock
    private let metrics: ServerMetrics
    private let logger: Logger
    private let registry: RoomRegistry
    private let viewerNamePrefix: String
    /// Where joins go; the local registry's rooms unless a cluster sets its own.
    public var directory: RoomDirectory
    private var connections: [ViewerID: Connection] = [:]
    private var nextViewerNumber = 1

    /// A class, so that looking one up per message (twice per input) costs one retain, not a copy
    /// of every field.
    final class Connection {
        let sink: ViewerSink
        let version: WireVersion
        let openedAt: Double
        var viewerName: String?
        var room: RoomEndpoint?
        var rateLimiter: InputRateLimiter
        var closing = false

        init(sink: ViewerSink, version: WireVersion, openedAt: Double, rateLimiter: InputRateLimiter) {
            self.sink = sink
            self.version = version
            self.openedAt = openedAt
            self.rateLimiter = rateLimiter
        }
    }

    /// A hub joining viewers to the rooms of `registry` (through `LocalRoomDirectory` until
    /// `directory` is set). Viewers are named `v1`, `v2`… after `viewerNamePrefix`, which a
    /// cluster sets per node so names are unique across nodes.
    public init(limits: ServerLimits, registry: RoomRegistry, clock: RoomClock, metrics: ServerMetrics, logger: Logger,
                viewerNamePrefix: String = "") {
        self.limits = limits
        self.registry = registry
        self.viewerNamePrefix = viewerNamePrefix
        self.directory = LocalRoomDirectory(registry: registry)
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// Open connections (joined or not).
    public var connectionCount: Int { connections.count }

    /// A connection opened, speaking `version`. Past `maxViewers` it is closed at once with 1013.
    public func open(_ id: ViewerID, sink: ViewerSink, version: WireVersion = .v1) {
        guard connections.count < limits.maxViewers else {
            logger.notice("refusing connection: server full", metadata: ["connection": "\(id)"])
            sink.close(CloseReason(.tryAgainLater, "server full: \(limits.maxViewers) viewers"))
            return
        }
        let now = clock.nowMilliseconds()
        connections[id] = Connection(
            sink: sink, version: version, openedAt: now,
            rateLimiter: InputRateLimiter(ratePerSecond: limits.inputsPerSecond, burst: limits.inputBurst, now: now))
        metrics.viewers.record(connections.count)
    }

    /// A connection is gone; its viewer leaves its room.
    public func closed(_ id: ViewerID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        metrics.viewers.record(connections.count)
        if let room = connection.room, let viewer = connection.viewerName {
            room.leave(viewer: viewer)
            logger.debug("viewer left", metadata: ["viewer": "\(viewer)", "room": "\(room.name)"])
        }
    }

    /// A text message arrived on a connection, as its UTF-8 bytes.
    public func receiveText(_ utf8: some Collection<UInt8>, from id: ViewerID) {
        guard let connection = connections[id], !connection.closing else { return }
        let decoded: ClientMessage
        do {
            decoded = try ClientMessageDecoder.decode(utf8)
        } catch {
            return fail(id, error)
        }
        switch decoded {
        case .join(let request): join(id, request)
        case .input(let input): handle(input, from: id)
        case .sharing(let request): share(request, from: id)
        case .keyframe: keyframe(for: id)
        case .ping(let ping): pong(ping, to: id)
        }
    }

    /// A binary message arrived on a connection: clients send JSON text in every version.
    public func receiveBinary(from id: ViewerID) {
        guard let connection = connections[id], !connection.closing else { return }
        fail(id, WireError("binary messages are not part of \(connection.version.subprotocol) from clients; send JSON text",
                           kind: .binaryNotAccepted))
    }

    /// Closes connections that did not join in time, drops expired rooms and gives the store its
    /// upkeep; the server runs it about once a second.
    public func housekeeping() {
        let now = clock.nowMilliseconds()
        let late = connections.filter { $0.value.viewerName == nil && !$0.value.closing
            && now - $0.value.openedAt >= limits.joinDeadlineMilliseconds }
        let seconds = Int(limits.joinDeadlineMilliseconds / 1000)
        for (id, _) in late {
            close(id, CloseReason(.policyViolation, "no join within \(seconds) s of connecting"))
        }
        registry.removeExpiredRooms()
        registry.storeHousekeeping()
    }

    // MARK: -

    private func join(_ id: ViewerID, _ request: JoinRequest) {
        guard let connection = connections[id] else { return }
        guard connection.viewerName == nil else {
            return fail(id, WireError("already joined room '\(connection.room?.name ?? "")'; one join per connection"))
        }
        // The key is the server's, never the client's: a chosen one could be guessed or empty.
        // It reaches the creator in its snapshot, to share.
        var request = request
        if request.stream == .inputs {
            if let refusal = Room.engineRefusal(request.engine) { return refuse(id, refusal) }
            // What the stream implies if the room moves this viewer to frames (its hash keeps
            // disagreeing): `applied` with the mark, as to a replica's page.
            request.inputs = true
            request.complete = true
        }
        let newKey = request.lock ? DriverKey.random().hex : nil
        let viewer = "\(viewerNamePrefix)v\(nextViewerNumber)"
        let join = ViewerJoin(viewer: viewer, sink: connection.sink, version: connection.version, request: request, newKey: newKey)
        switch directory.join(join) {
        case .failure(let failure):
            return refuseJoin(id, request, failure)
        case .success(let room):
            nextViewerNumber += 1
            connections[id]?.viewerName = viewer
            connections[id]?.room = room
            logger.debug("viewer joined", metadata: [
                "viewer": "\(viewer)", "room": "\(room.name)", "client": "\(request.client ?? "-")",
                "protocol": "\(connection.version)"])
        }
    }

    private func refuseJoin(_ id: ViewerID, _ request: JoinRequest, _ failure: JoinFailure) {
        switch failure {
        case .unknownScene(let name):
            return fail(id, WireError.notOneOf(field: "scene", options: registry.scenes.entries.map(\.name), got: name))
        case .tooManyRooms:
            logger.notice("refusing join: too many rooms", metadata: ["room": "\(request.room)"])
        case .ownedElsewhere:
            logger.notice("refusing join: room runs on another node", metadata: ["room": "\(request.room)"])
        case .storeUnavailable(let message):
            logger.error("refusing join: room store unavailable", metadata: ["room": "\(request.room)", "error": "\(message)"])
        case .clusterUnavailable(let message):
            logger.error("refusing join: cluster unavailable", metadata: ["room": "\(request.room)", "error": "\(message)"])
        }
        close(id, failure.closeReason)
    }

    private func handle(_ input: InputMessage, from id: ViewerID) {
        guard let connection = connections[id] else { return }
        guard let room = connection.room, let viewer = connection.viewerName else {
            return fail(id, WireError("send 'join' before any input"))
        }
        guard withinRate(connection, id, refusing: {
            room.refuse(input.id, .rateLimited, rateLimitReason("inputs"), to: viewer)
        }) else { return }
        room.handle(input, from: viewer)
    }

    /// A sharing message (docs/protocol.md, "Sharing"): it counts against the connection's input
    /// rate like an input. In a cluster the room's owner answers it, wherever the room runs.
    private func share(_ request: SharingRequest, from id: ViewerID) {
        guard let connection = connections[id] else { return }
        guard let room = connection.room, let viewer = connection.viewerName else {
            return fail(id, WireError("send 'join' before '\(request.type)'"))
        }
        guard withinRate(connection, id, refusing: {
            send(.refused(input: nil, code: .rateLimited, reason: rateLimitReason("messages"), version: connection.version),
                 to: connection)
        }) else { return }
        room.handleSharing(request, from: viewer)
    }

    /// A `keyframe` request (docs/protocol.md, "The inputs stream"): it counts against the
    /// connection's input rate like an input; from a viewer not in the inputs stream it is a
    /// protocol error. In a cluster the room's owner answers it, wherever the room runs.
    private func keyframe(for id: ViewerID) {
        guard let connection = connections[id] else { return }
        guard connection.room != nil, let viewer = connection.viewerName else {
            return fail(id, WireError("send 'join' before 'keyframe'"))
        }
        guard withinRate(connection, id) else { return }
        guard let room = connection.room, room.requestKeyframe(for: viewer) else {
            return fail(id, WireError("'keyframe' needs the inputs stream"))
        }
    }

    /// `ping` (docs/protocol.md): answered at once by this node, joined or not, with `pong`; it
    /// counts against the connection's input rate, and one over it goes unanswered.
    private func pong(_ ping: UInt64, to id: ViewerID) {
        guard let connection = connections[id] else { return }
        guard withinRate(connection, id) else { return }
        send(.encoded(for: connection.version, v1: { ServerMessageEncoder.pong(id: ping) },
                      v2: { ServerMessageEncoderV2.pong(id: ping) }), to: connection)
    }

    /// Judges one message of connection `id` against its input rate, which inputs, sharing
    /// messages, `keyframe` and `ping` share: true to take it; one over the rate is refused
    /// (`refusing`, or dropped), and a connection that keeps flooding is closed.
    private func withinRate(_ connection: Connection, _ id: ViewerID, refusing refuse: () -> Void = {}) -> Bool {
        switch connection.rateLimiter.judge(now: clock.nowMilliseconds()) {
        case .accept:
            return true
        case .refuse:
            refuse()
        case .disconnect:
            logger.notice("closing a connection that keeps flooding",
                          metadata: ["viewer": "\(connection.viewerName ?? "connection \(id)")"])
            close(id, CloseReason(.policyViolation, "input rate limit exceeded"))
        }
        return false
    }

    /// A message of this node's own to one connection (not through a room), counted as sent.
    private func send(_ form: OutgoingMessage, to connection: Connection) {
        connection.sink.sendReliable(form)
        metrics.bytesOut.increment(by: form.count)
    }

    /// Why a connection's message was refused `rateLimited`: inputs and sharing messages share
    /// one budget (docs/protocol.md, "Limits and close codes").
    private func rateLimitReason(_ what: String) -> String {
        "too many \(what): at most \(Int(limits.inputsPerSecond))/s, bursts of \(Int(limits.inputBurst))"
    }

    /// `error` saying why, then the close with `reason`'s code.
    private func refuse(_ id: ViewerID, _ reason: CloseReason) {
        guard let connection = connections[id] else { return }
        let message = connection.version == .v1
            ? OutgoingMessage(utf8: ServerMessageEncoder.error(message: reason.reason))
            : OutgoingMessage(binary: ServerMessageEncoderV2.error(message: reason.reason))
        connection.sink.sendReliable(message)
        metrics.bytesOut.increment(by: message.count)
        close(id, reason)
    }

    /// A protocol error: `error`, then close with the error's code.
    private func fail(_ id: ViewerID, _ error: WireError) {
        logger.debug("protocol error", metadata: ["connection": "\(id)", "error": "\(error.message)"])
        refuse(id, CloseReason(error))
    }

    private func close(_ id: ViewerID, _ reason: CloseReason) {
        guard let connection = connections[id], !connection.closing else { return }
        connections[id]?.closing = true
        connection.sink.close(reason)
    }
}
