internal import CLibWebSockets
internal import CWebSocketsShim
import Glibc
import Synchronization

/// A WebSocket + HTTP server on one port, serviced by one libwebsockets thread.
///
/// Connection state lives on the service thread; methods marked "service thread only" must be called
/// from delegate callbacks, `schedule` timers or `execute` blocks.
public final class WebSocketServer: @unchecked Sendable {
    /// The configuration the server was created with.
    public let configuration: WebSocketServerConfiguration
    let delegate: any WebSocketServerDelegate
    let loop: ServiceLoop
    let statsBox = Mutex(WebSocketServerStats())
    private let boundPort = Atomic<Int>(0)

    // Service-thread state.
    var staticFiles: StaticFiles?
    var fileVersions = StaticFileVersions()
    var connections: [ConnectionID: ServerConnection] = [:]
    var connectionsByWSI: [OpaquePointer: ServerConnection] = [:]
    var pendingUpgrades: [OpaquePointer: UpgradeRequest] = [:]
    var pendingHTTPBodies: [OpaquePointer: [UInt8]] = [:]
    var pendingRequestBodies: [OpaquePointer: PendingRequestBody] = [:]
    var requestHeads = RequestHeadMeter()
    let httpStreams = HTTPStreamTable()
    var nextConnectionNumber: UInt64 = 0
    var isShuttingDown = false
    /// The connection whose RECEIVE callback is running (nothing is written to it at once).
    var receivingWSI: OpaquePointer?
    /// The buffer several messages to one connection are framed into (CorkedWrite.swift).
    var corkedWriter = CorkedWriter()

    /// Creates a server; nothing is bound until `start()`.
    public init(configuration: WebSocketServerConfiguration, delegate: any WebSocketServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
        self.loop = ServiceLoop(name: "ws-server")
        loop.willDestroy = { [unowned self] in reportRemainingClosed() }
    }

    deinit { corkedWriter.deallocate() }

    /// Called right before the context is destroyed: every connection still open is reported closed.
    private func reportRemainingClosed() {
        let remaining = connections.values.sorted { $0.id.rawValue < $1.id.rawValue }
        connections.removeAll()
        connectionsByWSI.removeAll()
        pendingUpgrades.removeAll()
        pendingHTTPBodies.removeAll()
        pendingRequestBodies.removeAll()
        requestHeads.forgetAll()
        cancelAllStreams()
        for state in remaining {
            statsBox.withLock { $0.openConnections -= 1 }
            delegate.server(self, didClose: state.id, code: state.closeCode, reason: state.closeReason)
        }
    }

    /// Binds, starts the service thread and returns the bound port.
    /// Throws if the port is taken, the address is bad or the public directory is unusable.
    @discardableResult
    public func start() throws -> Int {
        let configuration = self.configuration
        if let directory = configuration.publicDirectory {
            staticFiles = try StaticFiles(directory: directory, encodedDirectory: configuration.encodedDirectory)
        }
        guard (0...65535).contains(configuration.port) else {
            throw WebSocketError(.cannotListen, "port \(configuration.port) is out of range 0...65535")
        }
        guard configuration.maxMessageBytes > 0, configuration.reliableQueueLimit > 0 else {
            throw WebSocketError(.contextCreationFailed, "maxMessageBytes and reliableQueueLimit must be positive")
        }
        if let problem = WebSocketServer.subprotocolProblem(configuration) {
            throw WebSocketError(.contextCreationFailed, problem)
        }
        try loop.start { [self] in
            let names = configuration.subprotocols.map { strdup($0) }
            defer { names.forEach { free($0) } }
            let bundle = configuration.host.withCString { host in
                names.map { UnsafePointer($0) }.withUnsafeBufferPointer { protocolNames in
                    var options = scws_server_options()
                    options.host = host
                    options.port = Int32(configuration.port)
                    options.protocol_names = protocolNames.baseAddress
                    options.protocol_count = Int32(protocolNames.count)
                    options.callback = serverCallback
                    options.user = Unmanaged.passUnretained(self).toOpaque()
                    options.max_http_header_bytes = UInt32(RequestHeadMeter.lwsBufferBytes)
                    options.http_timeout_seconds = UInt32(clamping: max(1, configuration.httpTimeoutSeconds))
                    options.ping_seconds = UInt32(clamping: max(0, configuration.pingInterval))
                    options.hangup_seconds = UInt32(clamping: max(0, configuration.idleTimeout))
                    options.rx_buffer_size = 0
                    options.permessage_deflate = configuration.permessageDeflate ? 1 : 0
                    return scws_server_create(&options)
                }
            }
            guard let bundle else {
                return .failure(WebSocketServer.listenError(host: configuration.host, port: configuration.port))
            }
            boundPort.store(Int(scws_context_listen_port(bundle)), ordering: .releasing)
            return .success(bundle)
        }
        return port
    }

    /// The port the server listens on (0 before `start()`).
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// A snapshot of the traffic counters.
    public var stats: WebSocketServerStats { statsBox.withLock { $0 } }

    /// Whether the caller is the service thread.
    public var isOnServiceThread: Bool { loop.isOnServiceThread }

    /// Queues `message` reliably (FIFO, bounded by `reliableQueueLimit`; overflow closes the
    /// connection with 1008). Unknown or closing connections are ignored. Service thread only.
    public func send(_ message: OutboundMessage, to connection: ConnectionID) {
        requireServiceThread("send")
        guard let state = connections[connection], state.pendingClose == nil, !state.peerClosed else { return }
        if state.reliable.count >= configuration.reliableQueueLimit {
            closeForOverflow(state)
        } else {
            if writeAtOnceIfIdle(state, message) { return }
            state.reliable.append(message)
        }
        scws_request_writable(state.wsi)
    }

    /// The reliable queue is full: it is dropped and the connection closed with 1008.
    private func closeForOverflow(_ state: ServerConnection) {
        state.reliable.removeAll()
        state.latest = nil
        state.pendingClose = PendingClose(code: .policyViolation, reason: "send queue overflow", immediate: true)
        statsBox.withLock { $0.queueOverflows += 1 }
        // The close frame goes out once the peer reads again; one that never does is cut off
        // (without this it lingered until the idle timeout, up to a minute).
        lws_set_timeout(state.wsi, PENDING_TIMEOUT_USER_OK, Int32(WebSocketServer.stuckPeerGraceSeconds))
    }

    /// Queues `leading` reliably, in order, and then offers `message` as the latest frame, so that
    /// they leave together: in one write when the connection can take them (CorkedWrite.swift),
    /// now if it is idle and writes at once are on. The same as `send` for each of `leading` and
    /// then `sendLatest`, without writing the first of them alone. Returns true if the frame
    /// replaced one never sent. Service thread only.
    @discardableResult
    public func sendLatest(_ message: OutboundMessage, after leading: [OutboundMessage], to connection: ConnectionID) -> Bool {
        if leading.isEmpty { return sendLatest(message, to: connection) }
        requireServiceThread("sendLatest")
        guard let state = connections[connection], state.pendingClose == nil, !state.peerClosed else { return false }
        if state.reliable.count + leading.count > configuration.reliableQueueLimit {
            closeForOverflow(state)
            scws_request_writable(state.wsi)
            return false
        }
        return queueAndWriteIfIdle(state, leading, message)
    }

    /// Puts `message` in the connection's single replaceable slot, sent once the reliable queue is
    /// empty. Returns true if it replaced a message that was never sent (a skipped frame).
    /// Service thread only.
    @discardableResult
    public func sendLatest(_ message: OutboundMessage, to connection: ConnectionID) -> Bool {
        requireServiceThread("sendLatest")
        guard let state = connections[connection], state.pendingClose == nil, !state.peerClosed else { return false }
        let replaced = state.latest != nil
        if !replaced, writeAtOnceIfIdle(state, message) { return false }
        state.latest = message
        if replaced {
            // The slot was full, so a writeable callback is already requested.
            statsBox.withLock { $0.latestReplaced += 1 }
        } else {
            scws_request_writable(state.wsi)
        }
        return replaced
    }

    /// Seconds a connection that is being closed may take to accept its close frame before it is
    /// cut off (a peer that stopped reading cannot receive it).
    public static let stuckPeerGraceSeconds = 10

    /// Closes the connection with `code` and `reason` after the reliable messages already queued.
    /// Service thread only.
    public func close(_ connection: ConnectionID, code: CloseCode, reason: String) {
        requireServiceThread("close")
        guard let state = connections[connection], state.pendingClose == nil else { return }
        state.latest = nil
        state.pendingClose = PendingClose(code: code, reason: reason, immediate: false)
        // A peer that never drains its queue must not keep the connection open forever.
        lws_set_timeout(state.wsi, PENDING_TIMEOUT_USER_OK, Int32(WebSocketServer.stuckPeerGraceSeconds))
        scws_request_writable(state.wsi)
    }

    /// Runs `work` once on the service thread after `ms` milliseconds, unless `cancel` is
    /// called with the returned timer first. Service thread only.
    @discardableResult
    public func schedule(afterMilliseconds ms: Double, _ work: @escaping () -> Void) -> ServiceTimer {
        requireServiceThread("schedule")
        return ServiceTimer(id: loop.schedule(afterMilliseconds: ms, work))
    }

    /// Makes sure `timer`'s work never runs; nothing if it ran already. Service thread only.
    public func cancel(_ timer: ServiceTimer) {
        requireServiceThread("cancel")
        loop.cancelTimer(timer.id)
    }

    /// Runs `work` on the service thread soon. Thread-safe; dropped if the server is not running.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.execute(work)
    }

    /// Closes every WebSocket connection with `code` and `reason`, stops the service thread and
    /// returns once it has stopped (about a second at most). Thread-safe, but not from the service
    /// thread itself; calling it twice is harmless.
    public func shutdown(code: CloseCode = .goingAway, reason: String = "server shutting down") {
        precondition(!loop.isOnServiceThread, "shutdown() would wait for itself on the service thread")
        let queued = loop.execute { [self] in beginShutdown(code: code, reason: reason) }
        if queued || port != 0 { loop.waitUntilStopped() }
    }

    private func beginShutdown(code: CloseCode, reason: String) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        for state in connections.values {
            state.reliable.removeAll()
            state.latest = nil
            state.pendingClose = PendingClose(code: code, reason: reason, immediate: true)
            scws_request_writable(state.wsi)
        }
        // Peers that never answer the close frame are cut off by destroying the context.
        loop.schedule(afterMilliseconds: 900) { [self] in loop.requestStop() }
        stopIfDrained()
    }

    /// Ends the loop once shutting down and no WebSocket connection is left.
    func stopIfDrained() {
        if isShuttingDown && connections.isEmpty { loop.requestStop() }
    }

    private func requireServiceThread(_ function: String) {
        precondition(loop.isOnServiceThread, "WebSocketServer.\(function) must be called on the service thread")
    }

    /// Why the subprotocol settings cannot work, if they cannot: a server no client can reach, or a
    /// name libwebsockets would never match (it compares HTTP tokens of at most 62 bytes), whose
    /// clients it would drop after the upgrade had been accepted.
    private static func subprotocolProblem(_ configuration: WebSocketServerConfiguration) -> String? {
        if configuration.subprotocols.isEmpty && !configuration.acceptsMissingSubprotocol {
            return "no subprotocols configured and acceptsMissingSubprotocol is false: no client could connect"
        }
        let tokenBytes = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for name in configuration.subprotocols {
            guard !name.isEmpty, name.utf8.count <= Self.maxSubprotocolNameBytes, name.utf8.allSatisfy(tokenBytes.contains) else {
                return "subprotocol name '\(name)' is not an HTTP token of 1 to \(Self.maxSubprotocolNameBytes) characters"
            }
        }
        return nil
    }

    /// Works out why lws could not listen, by trying the bind ourselves.
    private static func listenError(host: String, port: Int) -> WebSocketError {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { if fd >= 0 { Glibc.close(fd) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            return WebSocketError(.cannotListen, "cannot listen on \(host):\(port): '\(host)' is not an IPv4 address")
        }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 {
            let why = String(cString: strerror(errno))
            return WebSocketError(.cannotListen, "cannot listen on \(host):\(port): \(why)")
        }
        return WebSocketError(.contextCreationFailed, "libwebsockets could not create a server context on \(host):\(port) (see its log)")
    }
}

/// State of one WebSocket connection, owned by the service thread.
final class ServerConnection {
    let id: ConnectionID
    let wsi: OpaquePointer
    let request: UpgradeRequest
    var reliable = OutboundQueue()
    var latest: OutboundMessage?
    var pendingClose: PendingClose?
    /// The close frame was handed to lws (writeable returned -1); lws finishes the handshake.
    var closeHandedOver = false
    /// A message permessage-deflate has not finished emitting; kept alive because lws reads its buffer.
    var compressing: OutboundMessage?
    /// The peer sent a close frame: nothing more may be written.
    var peerClosed = false
    var assembler: MessageAssembler
    /// The close code/reason sent or received first, reported in didClose.
    var closeCode: CloseCode?
    var closeReason = ""

    init(id: ConnectionID, wsi: OpaquePointer, request: UpgradeRequest, maxMessageBytes: Int) {
        self.id = id
        self.wsi = wsi
        self.request = request
        self.assembler = MessageAssembler(maxBytes: maxMessageBytes)
    }
}
