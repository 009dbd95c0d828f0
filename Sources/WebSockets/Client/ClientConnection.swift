/// State of one client connection, owned by the service thread.
final class ClientConnection {
    /// Where the connection is in its life.
    enum Phase {
        /// TCP connect under way.
        case connecting
        /// TCP is up; the upgrade request is sent (or about to be) and the response awaited.
        case handshaking
        /// The WebSocket is open (the delegate heard `didConnect`).
        case open
    }

    let id: ConnectionID
    let target: WebSocketURL
    let origin: String?
    var phase = Phase.connecting
    /// The lws connection, from the connect call until lws closes it.
    var wsi: OpaquePointer?
    var handshake: ClientHandshake
    var requestSent = false
    var parser: ClientFrameParser
    var queue = OutboundQueue()
    /// Pong payloads owed to the server; sent before queued messages.
    var pongs: [[UInt8]] = []
    var pendingClose: PendingClose?
    /// Our close frame went out: nothing more may be written.
    var closeSent = false
    /// The server's close frame arrived (or its frames broke the protocol): later bytes are ignored.
    var stopReading = false
    var closeReceived = false
    /// The code the server's close frame carried, echoed back.
    var receivedCode: CloseCode?
    var closeCode: CloseCode?
    var closeReason = ""
    /// Why the handshake failed, once known.
    var failureReason: String?

    init(id: ConnectionID, target: WebSocketURL, subprotocol: String?, origin: String?, maxMessageBytes: Int, keyBytes: [UInt8]) {
        self.id = id
        self.target = target
        self.origin = origin
        self.handshake = ClientHandshake(keyBytes: keyBytes, subprotocol: subprotocol)
        self.parser = ClientFrameParser(maxMessageBytes: maxMessageBytes)
    }

    /// Records the first close code and reason seen or sent; later ones do not replace it.
    func noteClose(_ code: CloseCode?, _ reason: String) {
        guard closeCode == nil else { return }
        closeCode = code
        closeReason = reason
    }

    /// The Host header: the port is left out when it is the default.
    var hostHeader: String {
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        return target.port == 80 ? host : "\(host):\(target.port)"
    }
}
