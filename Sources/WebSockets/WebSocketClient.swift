import CLibWebSockets
import CWebSocketsShim
import Synchronization

/// Many outgoing WebSocket connections on one libwebsockets context and one service thread
/// (for the load generator and tests).
public final class WebSocketClient: @unchecked Sendable {
    let delegate: any WebSocketClientDelegate
    let maxMessageBytes: Int
    let loop: ServiceLoop
    private let nextID = Atomic<UInt64>(0)

    // Service-thread state.
    var connections: [ConnectionID: ClientConnection] = [:]
    /// Copy target for writes: client frames are masked in place, so shared messages are copied first.
    var scratch: UnsafeMutablePointer<UInt8>?
    var scratchCapacity = 0
    var isShuttingDown = false

    /// Creates a client; call `start()` before connecting.
    ///
    /// The client never offers permessage-deflate: with compression negotiated, libwebsockets
    /// 4.1.6's client side corrupted its heap in tests here (large uncompressed frames, and
    /// intermittently otherwise). Servers therefore see plain, uncompressed traffic from it.
    public init(delegate: any WebSocketClientDelegate, maxMessageBytes: Int = 1 << 20) {
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
            if state.wsi == nil {
                delegate.client(self, didFailToConnect: state.id, reason: "client shut down before the connection opened")
            } else {
                delegate.client(self, didClose: state.id, code: state.closeCode, reason: state.closeReason)
            }
        }
    }

    deinit { scratch?.deallocate() }

    /// Starts the service thread.
    public func start() throws {
        try loop.start { [self] in
            let user = Unmanaged.passUnretained(self).toOpaque()
            guard let bundle = scws_client_create(clientCallback, user, 0, 0) else {
                return .failure(WebSocketError(.contextCreationFailed, "libwebsockets could not create a client context (see its log)"))
            }
            return .success(bundle)
        }
    }

    /// Starts connecting to `url` (ws://host:port/path?query) and returns the new connection's ID
    /// at once; the delegate hears `didConnect` or `didFailToConnect`. Thread-safe.
    /// Throws on a malformed URL or if the client is not running.
    public func connect(url: String, subprotocol: String? = "scrollcast.v1", origin: String? = nil) throws -> ConnectionID {
        let target = try WebSocketURL(url)
        let id = ConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).newValue)
        let queued = loop.execute { [self] in open(id: id, target: target, subprotocol: subprotocol, origin: origin) }
        guard queued else { throw WebSocketError(.notRunning, "WebSocketClient is not running; cannot connect to \(url)") }
        return id
    }

    /// Queues `message` on the connection (FIFO). Thread-safe; ignored if the connection is gone.
    public func send(_ message: OutboundMessage, on connection: ConnectionID) {
        onServiceThread { [self] in
            guard let state = connections[connection], state.pendingClose == nil else { return }
            state.queue.append(message)
            if let wsi = state.wsi { lws_callback_on_writable(wsi) }
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
            guard let state = connections[connection], state.pendingClose == nil else { return }
            state.pendingClose = PendingClose(code: code, reason: reason, immediate: false)
            if let wsi = state.wsi { lws_callback_on_writable(wsi) }
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
                state.queue.removeAll()
                state.pendingClose = PendingClose(code: .normal, reason: "client shutting down", immediate: true)
                if let wsi = state.wsi { lws_callback_on_writable(wsi) }
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
        let state = ClientConnection(id: id, maxMessageBytes: maxMessageBytes)
        connections[id] = state
        let hostHeader = target.port == 80 ? target.host : "\(target.host):\(target.port)"
        // The connection's user pointer carries its ID, never an object: lws may call back after we forget it.
        let userdata = UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue))
        let wsi = target.host.withCString { address in
            target.pathAndQuery.withCString { path in
                hostHeader.withCString { host in
                    withOptionalCString(origin) { origin in
                        withOptionalCString(subprotocol) { subprotocol in
                            scws_client_connect(loop.bundle, address, Int32(target.port), path, host, origin, subprotocol, userdata)
                        }
                    }
                }
            }
        }
        if wsi == nil, connections[id] != nil {
            connections[id] = nil
            delegate.client(self, didFailToConnect: id, reason: "could not start connecting to \(target.host):\(target.port)")
        }
    }

    func connection(for wsi: OpaquePointer) -> ClientConnection? {
        guard let user = lws_wsi_user(wsi) else { return nil }
        return connections[ConnectionID(rawValue: UInt64(UInt(bitPattern: user)))]
    }

    func write(_ message: OutboundMessage, on wsi: OpaquePointer) -> Bool {
        let needed = lwsPre + max(message.count, 1)
        if scratchCapacity < needed {
            scratch?.deallocate()
            scratchCapacity = max(needed, 2 * scratchCapacity)
            scratch = .allocate(capacity: scratchCapacity)
        }
        guard let scratch else { return false }
        (scratch + lwsPre).update(from: message.storage + lwsPre, count: message.count)
        return LWS.write(wsi, scratch, count: message.count, isText: message.isText)
    }
}

/// State of one client connection, owned by the service thread.
final class ClientConnection {
    let id: ConnectionID
    /// Set once the handshake completed.
    var wsi: OpaquePointer?
    var queue = OutboundQueue()
    var pendingClose: PendingClose?
    /// The close frame was handed to lws (writeable returned -1); lws finishes the handshake.
    var closeHandedOver = false
    /// permessage-deflate still reads the scratch buffer (guard; the extension wrapper avoids it).
    var compressing = false
    /// The peer sent a close frame: nothing more may be written.
    var peerClosed = false
    var assembler: MessageAssembler
    var closeCode: CloseCode?
    var closeReason = ""

    init(id: ConnectionID, maxMessageBytes: Int) {
        self.id = id
        self.assembler = MessageAssembler(maxBytes: maxMessageBytes)
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
