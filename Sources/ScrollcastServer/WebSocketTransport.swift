import Glibc
import ScrollWire
import ScrollcastRooms
internal import WebSockets

/// The one place the room layer meets the WebSocket library: it runs a `WebSocketServer`,
/// turns its events into `RoomService` calls, gives viewers sinks over their connections, and
/// serves as the room thread's scheduler (the library's service thread and its timers).
nonisolated final class WebSocketTransport: WebSocketServerDelegate, RoomScheduler, @unchecked Sendable {
    // Set once in `start`, before the library calls back; read only on the service thread.
    private var server: WebSocketServer!
    private var service: RoomService!

    init() {}

    /// The upgrade URL's query parameter that carries a join: `/ws?join=<JSON, percent-encoded>`.
    static let joinParameter = "join"

    /// Binds with `configuration`'s address, timeouts and page, and the protocol's subprotocols
    /// and size limit; events go to `service`. Returns the bound port.
    func start(_ configuration: ScrollcastServerConfiguration, service: RoomService) throws -> Int {
        self.service = service
        var socketConfiguration = WebSocketServerConfiguration(
            subprotocols: ScrollWire.subprotocols, maxMessageBytes: ScrollWire.maxMessageBytes)
        socketConfiguration.host = configuration.host
        socketConfiguration.port = configuration.port
        socketConfiguration.publicDirectory = configuration.publicDirectory
        socketConfiguration.encodedDirectory = configuration.encodedDirectory
        socketConfiguration.pingInterval = configuration.timeouts.pingIntervalSeconds
        socketConfiguration.idleTimeout = configuration.timeouts.idleTimeoutSeconds
        // A join may come in the upgrade URL (docs/protocol.md, "Joining in the upgrade"): the
        // room layer gets it as the connection's first message, so its answer follows the 101.
        socketConfiguration.firstMessageParameter = Self.joinParameter
        socketConfiguration.httpTimeoutSeconds = configuration.timeouts.httpRequestSeconds
        // Origins are checked by the service, because the default ("our own address") needs the
        // bound port, known only after binding.
        socketConfiguration.allowedOrigins = nil
        // Writes at once are still being measured (bench/where-the-time-goes.md §7), so they are
        // opt-in for benchmarks: SCROLLCAST_WRITE_AT_ONCE=1.
        if let value = getenv("SCROLLCAST_WRITE_AT_ONCE"), String(cString: value) == "1" {
            socketConfiguration.writesAtOnce = true
        }
        // For measuring the lateness guard itself (a large value turns it off).
        if let value = getenv("SCROLLCAST_WRITE_AT_ONCE_LATENESS_MS"), let limit = Double(String(cString: value)) {
            socketConfiguration.writeAtOnceLatenessLimitMilliseconds = limit
        }
        let server = WebSocketServer(configuration: socketConfiguration, delegate: self)
        self.server = server
        RoomActor.executor.install(ServiceThread(server: server))
        let port = try server.start()
        server.execute { [self] in RoomActor.assumeIsolated { self.service.started(port: port) } }
        return port
    }

    /// Closes every viewer with `reason` and stops; returns when stopped. Thread-safe.
    func shutdown(_ reason: CloseReason) {
        server?.shutdown(code: WebSockets.CloseCode(reason), reason: reason.reason)
        // Nothing runs on the service thread any more: the room actor goes back to a queue of
        // its own (for closing the store and the cluster node).
        RoomActor.executor.installOwnQueue()
    }

    // MARK: RoomScheduler

    @discardableResult
    func schedule(afterMilliseconds milliseconds: Double, _ work: @escaping () -> Void) -> ScheduledWork {
        let timer = server.schedule(afterMilliseconds: milliseconds, work)
        return ScheduledWork { [server] in server?.cancel(timer) }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        server.execute(work)
    }

    // MARK: WebSocketServerDelegate

    func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision {
        RoomActor.assumeIsolated { service.refusal(forOrigin: request.origin).map { .reject(reason: $0) } ?? .accept }
    }

    func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?) {
        RoomActor.assumeIsolated {
            service.opened(ViewerID(connection), sink: ConnectionSink(server: server, connection: connection),
                           subprotocol: subprotocol)
        }
    }

    /// Text arrives as the library's bytes, straight into the decoder: no String in between.
    func server(_ server: WebSocketServer, didReceiveText utf8: UnsafeRawBufferPointer, from connection: ConnectionID) {
        // Read only inside this call, on this thread, before the library reuses the buffer.
        nonisolated(unsafe) let utf8 = utf8
        RoomActor.assumeIsolated { service.receivedText(utf8, from: ViewerID(connection)) }
    }

    func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {
        RoomActor.assumeIsolated {
            switch message {
            case .text(let text): service.receivedText(text.utf8, from: ViewerID(connection))
            case .binary: service.receivedBinary(from: ViewerID(connection))
            }
        }
    }

    func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: WebSockets.CloseCode?, reason: String) {
        RoomActor.assumeIsolated { service.closed(ViewerID(connection)) }
    }

    func server(_ server: WebSocketServer, streamResponseTo method: String, path: String, query: String,
                authorization: String?) -> ((HTTPResponseStream) -> Void)? {
        RoomActor.assumeIsolated {
            service.streamedRoute(method: method, path: path, query: query, authorization: authorization).map { start in
                { stream in RoomActor.assumeIsolated { start(StreamWriter(stream: stream)) } }
            }
        }
    }

    func server(_ server: WebSocketServer, maxBodyBytesFor method: String, path: String) -> Int? {
        RoomActor.assumeIsolated { service.maxRequestBodyBytes(method: method, path: path) }
    }

    func server(_ server: WebSocketServer, respondTo request: HTTPRequestWithBody, on stream: HTTPResponseStream) {
        RoomActor.assumeIsolated {
            service.respond(method: request.method, path: request.path, contentType: request.contentType,
                            body: request.body, client: request.peerAddress, into: StreamWriter(stream: stream))
        }
    }

    func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse? {
        RoomActor.assumeIsolated { service.respond(method: method, path: path, query: query) }.map {
            HTTPResponse(status: $0.status, contentType: $0.contentType, body: $0.body,
                         headers: cachePolicy(path: path, status: $0.status, body: $0.body) + $0.headers)
        }
    }

    /// Scene images (`scene-images/…`, docs/scenes.md) are kept by browsers and revalidated: a
    /// reload gets `304`s instead of the images again. Every other route is never cached.
    private func cachePolicy(path: String, status: Int, body: [UInt8]) -> [(String, String)] {
        guard status == 200, path.hasPrefix("/scene-images/") else { return [("cache-control", "no-store")] }
        return [("cache-control", "no-cache"), ("etag", sceneImageTags.tag(path: path, body: body))]
    }

    // Service thread only.
    private var sceneImageTags = SceneImageTags()
}

/// A streamed response of the library as the room layer's `HTTPBodyWriter`; like every
/// dynamic route it is never cached.
private struct StreamWriter: HTTPBodyWriter {
    let stream: HTTPResponseStream

    var wantsBody: Bool { stream.wantsBody }
    var peakBufferedBytes: Int { stream.peakBufferedBytes }
    func begin(status: Int, contentType: String, headers: [(String, String)]) {
        stream.begin(status: status, contentType: contentType, headers: [("cache-control", "no-store")] + headers)
    }
    func write(_ bytes: [UInt8]) -> Bool { stream.write(bytes) }
    func finish() { stream.finish() }
    func abort() { stream.abort() }
}

/// A viewer's WebSocket connection as a `ViewerSink`.
private final class ConnectionSink: ViewerSink {
    private unowned let server: WebSocketServer
    private let connection: ConnectionID

    init(server: WebSocketServer, connection: ConnectionID) {
        self.server = server
        self.connection = connection
    }

    func sendReliable(_ message: OutgoingMessage) { server.send(message.outbound, to: connection) }
    func sendLatest(_ message: OutgoingMessage) -> Bool { server.sendLatest(message.outbound, to: connection) }
    func sendLatest(_ message: OutgoingMessage, after leading: [OutgoingMessage]) -> Bool {
        server.sendLatest(message.outbound, after: leading.map(\.outbound), to: connection)
    }
    func close(_ reason: CloseReason) { server.close(connection, code: WebSockets.CloseCode(reason), reason: reason.reason) }
}

extension OutgoingMessage {
    /// The library's form of the message (bytes behind its frame-header headroom), made on the
    /// first send and shared by every later one.
    fileprivate var outbound: OutboundMessage {
        if let prepared = transportForm as? OutboundMessage { return prepared }
        let prepared = kind == .text ? OutboundMessage(utf8: bytes) : OutboundMessage(binary: bytes)
        transportForm = prepared
        return prepared
    }
}

extension ViewerID {
    fileprivate init(_ connection: ConnectionID) { self.init(rawValue: connection.rawValue) }
}

extension WebSockets.CloseCode {
    /// The same number in the transport's own type.
    fileprivate init(_ reason: CloseReason) { self.init(rawValue: reason.code.rawValue) }
}

/// The service thread as the room actor's thread: a job goes into the service loop's queue, and
/// `lws_cancel_service` wakes the loop to run it.
private final class ServiceThread: RoomThread {
    private unowned let server: WebSocketServer

    init(server: WebSocketServer) { self.server = server }

    func enqueue(_ job: UnownedJob) {
        server.execute { job.runSynchronously(on: RoomActor.executor.asUnownedSerialExecutor()) }
    }

    var isCurrent: Bool { server.isOnServiceThread }
}

/// Each scene image's tag, computed once: a scene's images are read at start-up and an upload's
/// name is new for new content, so the bytes at a path do not change while the server runs (the
/// byte count is checked all the same). Bounded by the scenes' images, which are in memory anyway.
private struct SceneImageTags {
    private var tags: [String: (count: Int, tag: String)] = [:]

    mutating func tag(path: String, body: [UInt8]) -> String {
        if let known = tags[path], known.count == body.count { return known.tag }
        let tag = HTTPResponse.entityTag(naming: body)
        tags[path] = (body.count, tag)
        return tag
    }
}
