internal import CLibWebSockets
internal import CWebSocketsShim
import Synchronization

/// Many outgoing WebSocket connections on one libwebsockets context and one service thread
/// (for the load generator and tests).
///
/// libwebsockets only moves bytes here (TCP connect, the event loop, timers, buffered writes):
/// connections are lws RAW sockets and this client speaks RFC 6455 itself, because lws 4.1.6's
/// client parser runs once per payload byte and dominated the load generator's CPU time.
public final class WebSocketClient: @unchecked Sendable {
    let delegate: any WebSocketClientDelegate
    let maxMessageBytes: Int
    let loop: ServiceLoop
    private let nextID = Atomic<UInt64>(0)

    /// Bytes one RAW_RX callback may deliver (lws's per-thread service buffer).
    static let readBufferBytes: UInt32 = 64 * 1024
    /// Frames gathered into one raw write stop growing past this.
    static let writeBatchBytes = 64 * 1024
    /// How long the server has to answer the upgrade request.
    static let handshakeTimeoutMilliseconds = 10_000.0
    /// How long, after our close frame or our echo of the server's, until the socket is dropped.
    static let closeTimeoutMilliseconds = 5_000.0

    // Service-thread state.
    var connections: [ConnectionID: ClientConnection] = [:]
    var writer = ClientFrameWriter()
    var maskKeys = MaskKeyGenerator()
    var isShuttingDown = false

    /// Creates a client; call `start()` before connecting.
    ///
    /// `maxMessageBytes` caps each received message (a larger one closes the connection with
    /// 1009); it has no default because the right cap depends on the application protocol.
    /// The client never offers permessage-deflate: servers see plain, uncompressed traffic from it.
    public init(delegate: any WebSocketClientDelegate, maxMessageBytes: Int) {
        self.delegate = delegate
        self.maxMessageBytes = max(1, maxMessageBytes)
        self.loop = ServiceLoop(name: "ws-client")
        loop.willDestroy = { [unowned self] in reportRemainingClosed() }
    }

    /// Called right before the context is destroyed: every connection left gets its final report.
    private func reportRemainingClosed() {
        let remaining = connections.values.sorted { $0.id.rawValue < $1.id.rawValue }
        connections.removeAll()
        for state in remaining {
            if state.phase != .open {
                delegate.client(self, didFailToConnect: state.id, reason: "client shut down before the connection opened")
            } else {
                delegate.client(self, didClose: state.id, code: state.closeCode, reason: state.closeReason)
            }
        }
    }

    deinit { writer.deallocate() }

    /// Starts the service thread.
    public func start() throws {
        try loop.start { [self] in
            let user = Unmanaged.passUnretained(self).toOpaque()
            guard let bundle = scws_raw_client_create(clientCallback, user, Self.readBufferBytes) else {
                return .failure(WebSocketError(.contextCreationFailed, "libwebsockets could not create a client context (see its log)"))
            }
            return .success(bundle)
        }
    }

    /// Starts connecting to `url` (ws://host:port/path?query) and returns the new connection's ID
    /// at once; the delegate hears `didConnect` or `didFailToConnect`. Thread-safe.
    /// `subprotocol` is the one offered in Sec-WebSocket-Protocol, which the server must agree to
    /// (nil offers none); it has no default because the transport knows no application protocol.
    /// Throws on a malformed URL or if the client is not running.
    public func connect(url: String, subprotocol: String?, origin: String? = nil) throws -> ConnectionID {
        let target = try WebSocketURL(url)
        let id = ConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).newValue)
        let queued = loop.execute { [self] in open(id: id, target: target, subprotocol: subprotocol, origin: origin) }
        guard queued else { throw WebSocketError(.notRunning, "WebSocketClient is not running; cannot connect to \(url)") }
        return id
    }

    /// Queues `message` on the connection (FIFO). Thread-safe; ignored if the connection is gone.
    public func send(_ message: OutboundMessage, on connection: ConnectionID) {
        onServiceThread { [self] in
            guard let state = connections[connection], state.pendingClose == nil, !state.closeSent else { return }
            state.queue.append(message)
            if state.phase == .open, let wsi = state.wsi { lws_callback_on_writable(wsi) }
        }
    }

    /// Runs `work` now if already on the service thread (no queue hop for timer-driven senders),
    /// otherwise hands it over.
    private func onServiceThread(_ work: @escaping @Sendable () -> Void) {
        if loop.isOnServiceThread { work() } else { loop.execute(work) }
    }

    /// Closes the connection with `code` and `reason` after the messages already queued. Thread-safe.
    public func close(_ connection: ConnectionID, code: CloseCode, reason: String) {
        onServiceThread { [self] in
            guard let state = connections[connection], state.pendingClose == nil, !state.closeSent else { return }
            state.pendingClose = PendingClose(code: code, reason: reason, immediate: false)
            if state.phase == .open, let wsi = state.wsi { lws_callback_on_writable(wsi) }
        }
    }

    /// Runs `work` once on the service thread after `ms` milliseconds. Service thread only.
    public func schedule(afterMilliseconds ms: Double, _ work: @escaping () -> Void) {
        precondition(loop.isOnServiceThread, "WebSocketClient.schedule must be called on the service thread")
        loop.schedule(afterMilliseconds: ms, work)
    }

    /// Runs `work` on the service thread soon. Thread-safe.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.execute(work)
    }

    /// Whether the caller is the service thread.
    public var isOnServiceThread: Bool { loop.isOnServiceThread }

    /// Closes every connection with 1000 "client shutting down", stops the thread and returns once
    /// stopped (about a second at most). Not from the service thread; calling it twice is harmless.
    public func shutdown() {
        precondition(!loop.isOnServiceThread, "shutdown() would wait for itself on the service thread")
        let queued = loop.execute { [self] in
            guard !isShuttingDown else { return }
            isShuttingDown = true
            for state in connections.values {
                guard let wsi = state.wsi else { continue }
                if state.phase == .open {
                    state.queue.removeAll()
                    if !state.closeSent && !state.closeReceived {
                        state.pendingClose = PendingClose(code: .normal, reason: "client shutting down", immediate: true)
                        lws_callback_on_writable(wsi)
                    }
                } else {
                    state.failureReason = "client shut down before the connection opened"
                    scws_kill_async(wsi)
                }
            }
            loop.schedule(afterMilliseconds: 900) { [self] in loop.requestStop() }
            stopIfDrained()
        }
        if queued { loop.waitUntilStopped() }
    }

    func stopIfDrained() {
        if isShuttingDown && connections.isEmpty { loop.requestStop() }
    }

    private func open(id: ConnectionID, target: WebSocketURL, subprotocol: String?, origin: String?) {
        var system = SystemRandomNumberGenerator()
        let keyBytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &system) }
        let state = ClientConnection(id: id, target: target, subprotocol: subprotocol, origin: origin,
                                     maxMessageBytes: maxMessageBytes, keyBytes: keyBytes)
        connections[id] = state
        // The connection's user pointer carries its ID, never an object: lws may call back after we forget it.
        let userdata = UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue))
        let wsi = target.host.withCString { address in
            scws_raw_client_connect(loop.bundle, address, Int32(target.port), userdata)
        }
        guard connections[id] != nil else { return }
        guard let wsi else {
            connections[id] = nil
            delegate.client(self, didFailToConnect: id, reason: "could not start connecting to \(target.host):\(target.port)")
            return
        }
        state.wsi = wsi
    }

    func connection(for wsi: OpaquePointer) -> ClientConnection? {
        guard let user = lws_wsi_user(wsi) else { return nil }
        return connections[ConnectionID(rawValue: UInt64(UInt(bitPattern: user)))]
    }

    /// Drops the connection if it is still alive after `ms` (handshake or close timeouts).
    func scheduleTimeout(_ id: ConnectionID, afterMilliseconds ms: Double, stillPending: @escaping (ClientConnection) -> Bool,
                         reason: String? = nil) {
        loop.schedule(afterMilliseconds: ms) { [self] in
            guard let state = connections[id], let wsi = state.wsi, stillPending(state) else { return }
            if let reason, state.failureReason == nil { state.failureReason = reason }
            scws_kill_async(wsi)
        }
    }
}
