import Logging
import ScrollEngine
import ScrollWire
import WebSockets

/// Everything between a connection and its room, without the network: the join handshake and
/// its deadline, message decoding and protocol errors, the viewer and room limits and the input
/// rate limit. The WebSocket delegate forwards its events here; tests drive it with fake sinks.
public final class ViewerHub {
    private let limits: ServerLimits
    private let clock: RoomClock
    private let metrics: ServerMetrics
    private let logger: Logger
    /// The rooms.
    public let registry: RoomRegistry
    private var connections: [ConnectionID: Connection] = [:]
    private var nextViewerNumber = 1

    struct Connection {
        let sink: ViewerSink
        let openedAt: Double
        var viewerID: String?
        var room: Room?
        var rateLimiter: InputRateLimiter
        var closing = false
    }

    /// A hub with its own room registry.
    public init(limits: ServerLimits, clock: RoomClock, wallClock: @escaping WallClock,
                metrics: ServerMetrics, logger: Logger,
                makeConfiguration: @escaping () -> SceneConfiguration) {
        self.limits = limits
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.registry = RoomRegistry(limits: limits, clock: clock, wallClock: wallClock,
                                     metrics: metrics, makeConfiguration: makeConfiguration)
    }

    /// Open connections (joined or not).
    public var connectionCount: Int { connections.count }

    /// A connection opened. Past `maxViewers` it is closed at once with 1013.
    public func open(_ id: ConnectionID, sink: ViewerSink) {
        guard connections.count < limits.maxViewers else {
            logger.notice("refusing connection: server full", metadata: ["connection": "\(id)"])
            sink.close(code: .tryAgainLater, reason: "server full: \(limits.maxViewers) viewers")
            return
        }
        let now = clock.nowMilliseconds()
        connections[id] = Connection(
            sink: sink, openedAt: now,
            rateLimiter: InputRateLimiter(ratePerSecond: limits.inputsPerSecond, burst: limits.inputBurst, now: now))
        metrics.viewers.record(connections.count)
    }

    /// A connection is gone; its viewer leaves its room.
    public func closed(_ id: ConnectionID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        metrics.viewers.record(connections.count)
        if let room = connection.room, let viewer = connection.viewerID {
            room.leave(viewer: viewer)
            logger.debug("viewer left", metadata: ["viewer": "\(viewer)", "room": "\(room.name)"])
        }
    }

    /// A message arrived on a connection.
    public func receive(_ message: InboundMessage, from id: ConnectionID) {
        guard let connection = connections[id], !connection.closing else { return }
        let bytes: [UInt8]
        switch message {
        case .binary:
            return fail(id, WireError("binary messages are not part of scrollcast.v1; send JSON text",
                                      closeCode: WebSockets.CloseCode.unsupportedData.rawValue))
        case .text(let text):
            bytes = Array(text.utf8)
        }
        let decoded: ClientMessage
        do {
            decoded = try ClientMessageDecoder.decode(bytes)
        } catch {
            return fail(id, error)
        }
        switch decoded {
        case .join(let request): join(id, request)
        case .input(let input): handle(input, from: id)
        }
    }

    /// Closes connections that did not join in time and drops expired rooms; the server calls
    /// it about once a second.
    public func housekeeping() {
        let now = clock.nowMilliseconds()
        let late = connections.filter { $0.value.viewerID == nil && !$0.value.closing
            && now - $0.value.openedAt >= limits.joinDeadlineMilliseconds }
        let seconds = Int(limits.joinDeadlineMilliseconds / 1000)
        for (id, _) in late {
            close(id, code: .policyViolation, reason: "no join within \(seconds) s of connecting")
        }
        registry.removeExpiredRooms()
    }

    /// Closes every connection (server shutdown).
    public func closeAll(code: WebSockets.CloseCode, reason: String) {
        for id in Array(connections.keys) { close(id, code: code, reason: reason) }
    }

    // MARK: -

    private func join(_ id: ConnectionID, _ request: JoinRequest) {
        guard let connection = connections[id] else { return }
        guard connection.viewerID == nil else {
            return fail(id, WireError("already joined room '\(connection.room?.name ?? "")'; one join per connection"))
        }
        let room: Room
        let created: Bool
        do {
            // The key is the server's, never the client's: a chosen one could be guessed or empty.
            // It reaches the creator in its snapshot, to share.
            let lockKey = request.lock ? DriverKey.random().hex : nil
            (room, created) = try registry.roomForJoin(named: request.room, lockKey: lockKey,
                                                       scene: request.scene ?? .default)
        } catch {
            switch error {
            case .tooManyRooms(let limit):
                logger.notice("refusing join: too many rooms", metadata: ["room": "\(request.room)"])
                return close(id, code: .tryAgainLater, reason: "server full: \(limit) rooms")
            }
        }
        let viewer = "v\(nextViewerNumber)"
        nextViewerNumber += 1
        let canDrive = room.driverKey == nil || created
            || DriverKey.matches(expected: room.driverKey, candidate: request.driverKey)
        connections[id]?.viewerID = viewer
        connections[id]?.room = room
        room.join(viewer: viewer, sink: connection.sink, canDrive: canDrive)
        logger.debug("viewer joined", metadata: [
            "viewer": "\(viewer)", "room": "\(room.name)", "scene": "\(room.preset.rawValue)",
            "client": "\(request.client ?? "-")"])
    }

    private func handle(_ input: InputMessage, from id: ConnectionID) {
        guard let connection = connections[id] else { return }
        guard let room = connection.room, let viewer = connection.viewerID else {
            return fail(id, WireError("send 'join' before any input"))
        }
        switch connections[id]?.rateLimiter.judge(now: clock.nowMilliseconds()) {
        case .accept?:
            room.handle(input, from: viewer)
        case .refuse?:
            room.refuse(input.id, .rateLimited, "too many inputs: at most \(Int(limits.inputsPerSecond))/s, bursts of \(Int(limits.inputBurst))",
                        to: connection.sink)
        case .disconnect?, nil:
            logger.notice("closing a connection that keeps flooding", metadata: ["viewer": "\(viewer)"])
            close(id, code: .policyViolation, reason: "input rate limit exceeded")
        }
    }

    /// A protocol error: `error`, then close with the error's code.
    private func fail(_ id: ConnectionID, _ error: WireError) {
        guard let connection = connections[id] else { return }
        logger.debug("protocol error", metadata: ["connection": "\(id)", "error": "\(error.message)"])
        let message = OutboundMessage(utf8: ServerMessageEncoder.error(message: error.message))
        connection.sink.sendReliable(message)
        metrics.bytesOut.increment(by: message.count)
        close(id, code: WebSockets.CloseCode(rawValue: error.closeCode), reason: error.message)
    }

    private func close(_ id: ConnectionID, code: WebSockets.CloseCode, reason: String) {
        guard let connection = connections[id], !connection.closing else { return }
        connections[id]?.closing = true
        connection.sink.close(code: code, reason: reason.truncatedUTF8())
    }
}
