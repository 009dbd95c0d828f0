internal import CLibWebSockets
internal import CWebSocketsShim

/// The protocol callback for every server connection, HTTP and WebSocket alike.
func serverCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<WebSocketServer>.fromOpaque(owner).takeUnretainedValue()
    server.loop.passDidWork = true
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        server.loop.drainJobs()
        return 0
    case LWS_CALLBACK_HTTP:
        let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        return server.handleHTTP(wsi, path: path)
    case LWS_CALLBACK_HTTP_BODY:
        return server.receiveBody(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return server.completeBody(wsi)
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return server.writeStream(wsi) ?? server.writePendingHTTPBody(wsi)
    case LWS_CALLBACK_CLOSED_HTTP:
        server.forgetStream(wsi)
        server.pendingHTTPBodies[wsi] = nil
        server.pendingRequestBodies[wsi] = nil
        server.pendingUpgrades[wsi] = nil
        server.requestHeads.forget(wsi)
        return 0
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return server.confirmUpgrade(wsi)
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        // Every upgrade passes CONFIRM_UPGRADE first; anything that did not is refused here.
        return server.pendingUpgrades[wsi] == nil ? 1 : 0
    case LWS_CALLBACK_ESTABLISHED:
        return server.established(wsi)
    case LWS_CALLBACK_RECEIVE:
        return server.receive(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return server.writeable(wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if let state = server.connectionsByWSI[wsi] {
            state.peerClosed = true
            state.reliable.removeAll()
            state.latest = nil
            if state.closeCode == nil {
                (state.closeCode, state.closeReason) = parseClosePayload(
                    UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
            }
        }
        return 0
    case LWS_CALLBACK_CLOSED:
        server.closed(wsi)
        return 0
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

// MARK: - WebSocket

extension WebSocketServer {
    /// Decides an upgrade while the HTTP headers are still at hand, so a refusal can be a real 403.
    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let uri = LWS.header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let offered = (LWS.header(wsi, WSI_TOKEN_PROTOCOL) ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }
        var request = UpgradeRequest(
            path: uri,
            query: LWS.queryString(wsi),
            origin: LWS.header(wsi, WSI_TOKEN_ORIGIN),
            host: LWS.header(wsi, WSI_TOKEN_HOST),
            subprotocols: offered,
            remoteAddress: LWS.peerAddress(wsi))
        let protocolHeaderBytes = Int(lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL))
        let carried = upgradeMessage(wsi)
        request.firstMessage = carried.message
        if let refusal = headRefusal(wsi, keepMark: false) ?? refusal(for: request, protocolHeaderBytes: protocolHeaderBytes)
            ?? carried.refusal {
            statsBox.withLock { $0.upgradesRefused += 1 }
            pendingUpgrades[wsi] = nil
            // Headers and body go out at once: after a refusal lws finishes the transaction itself.
            return writeRefusal(wsi, refusal) ? 1 : -1
        }
        pendingUpgrades[wsi] = request
        return 0
    }

    /// lws picks the subprotocol from a copy of Sec-WebSocket-Protocol that holds 126 bytes and
    /// copies each name into one that holds 62; past either it drops the connection without an
    /// answer, after this check has passed it. So such offers are refused here, with a status the
    /// client can read.
    private static let maxProtocolHeaderBytes = 126
    static let maxSubprotocolNameBytes = 62

    private func refusal(for request: UpgradeRequest, protocolHeaderBytes: Int) -> (status: UInt32, message: String)? {
        if isShuttingDown { return (503, "server shutting down") }
        if request.path != configuration.webSocketPath { return (404, "no WebSocket endpoint at this path") }
        if let allowed = configuration.allowedOrigins {
            guard let origin = request.origin, allowed.contains(origin) else { return (403, "origin not allowed") }
        }
        if protocolHeaderBytes > Self.maxProtocolHeaderBytes
            || request.subprotocols.contains(where: { $0.utf8.count > Self.maxSubprotocolNameBytes }) {
            return (400, "Sec-WebSocket-Protocol list too long")
        }
        let acceptable = request.subprotocols.isEmpty
            ? configuration.acceptsMissingSubprotocol
            : request.subprotocols.contains { configuration.subprotocols.contains($0) }
        if !acceptable { return (400, subprotocolRequirement) }
        if case .reject(let reason) = delegate.server(self, shouldAccept: request) { return (403, reason) }
        return nil
    }

    /// What a refused client is told to offer. The one-name wording is the one clients of a
    /// single-protocol server have always seen.
    private var subprotocolRequirement: String {
        let names = configuration.subprotocols
        switch names.count {
        case 0: return "this endpoint accepts no subprotocol"
        case 1: return "subprotocol \(names[0]) required"
        default: return "one of the subprotocols \(names.joined(separator: ", ")) required"
        }
    }

    func established(_ wsi: OpaquePointer) -> Int32 {
        let request = pendingUpgrades.removeValue(forKey: wsi) ?? UpgradeRequest(path: configuration.webSocketPath)
        nextConnectionNumber += 1
        let id = ConnectionID(rawValue: nextConnectionNumber)
        let state = ServerConnection(id: id, wsi: wsi, request: request, maxMessageBytes: configuration.maxMessageBytes)
        connections[id] = state
        connectionsByWSI[wsi] = state
        statsBox.withLock {
            $0.openConnections += 1
            $0.connectionsOpened += 1
        }
        // Whatever the delegate sends now waits for the first writeable callback, after lws's own.
        receivingWSI = wsi
        defer { receivingWSI = nil }
        delegate.server(self, didOpen: id, request: request, subprotocol: negotiatedSubprotocol(wsi, request))
        if let message = request.firstMessage { deliverUpgradeMessage(message, to: state) }
        return 0
    }

    /// The subprotocol lws bound the connection to, as the configuration spells it. lws answers
    /// with a Sec-WebSocket-Protocol header only when the client sent one, so without an offer
    /// there is none, even though lws files such a connection under its first protocol.
    private func negotiatedSubprotocol(_ wsi: OpaquePointer, _ request: UpgradeRequest) -> String? {
        guard !request.subprotocols.isEmpty, let bound = lws_get_protocol(wsi) else { return nil }
        let index = Int(bound.pointee.id)
        return configuration.subprotocols.indices.contains(index) ? configuration.subprotocols[index] : nil
    }

    func receive(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
        guard let state = connectionsByWSI[wsi] else { return -1 }
        // Closing already: the rest of a refused message (or anything after it) is dropped unread.
        if state.pendingClose != nil { return 0 }
        receivingWSI = wsi
        defer { receivingWSI = nil }
        let final = lws_is_final_fragment(wsi) != 0
        let binary = lws_frame_is_binary(wsi) != 0
        let id = state.id
        // Text goes to the delegate as the bytes where they lie (lws's chunk or the reassembly
        // buffer): a delegate that parses them never pays for a String.
        let outcome = state.assembler.appendInPlace(chunk, binary: binary, final: final) { bytes, isBinary in
            statsBox.withLock {
                $0.messagesReceived += 1
                $0.bytesReceived += bytes.count
            }
            if isBinary {
                delegate.server(self, didReceive: .binary(Array(bytes)), from: id)
            } else {
                delegate.server(self, didReceiveText: bytes, from: id)
            }
        }
        switch outcome {
        case .incomplete, .delivered:
            return 0
        case .tooBig:
            return closeNow(state, .messageTooBig, "message too big")
        case .invalidUTF8:
            return closeNow(state, .invalidPayload, "invalid UTF-8 in text message")
        }
    }

    /// Closes for a bad message, ahead of anything queued. Not by returning -1 from RECEIVE: with
    /// permessage-deflate lws 4.1.6 loses that return while it hands over inflated chunks, and the
    /// connection stayed open (seen with a 16 KiB+ compressed message). So the close goes out from
    /// the next writeable callback, like every other close; a peer too stuck to take it is cut off.
    func closeNow(_ state: ServerConnection, _ code: CloseCode, _ reason: String) -> Int32 {
        statsBox.withLock { $0.badMessages += 1 }
        state.reliable.removeAll()
        state.latest = nil
        state.pendingClose = PendingClose(code: code, reason: reason, immediate: true)
        lws_set_timeout(state.wsi, PENDING_TIMEOUT_USER_OK, Int32(WebSocketServer.stuckPeerGraceSeconds))
        scws_request_writable(state.wsi)
        return 0
    }

    func writeable(_ wsi: OpaquePointer) -> Int32 {
        // After the peer's close frame lws still offers WRITEABLE, but data must not follow it.
        guard let state = connectionsByWSI[wsi], !state.peerClosed else { return 0 }
        // lws is sending the close frame and awaiting the peer's; a second -1 now would make it
        // drop the socket at once (seen under an input flood: the peer got a reset, not 1008).
        if state.closeHandedOver { return 0 }
        if let close = state.pendingClose, close.immediate || (state.reliable.isEmpty && state.compressing == nil) {
            // The close frame goes out when the kernel can take it: handed over on a full socket,
            // lws would hold it past its own close timeouts (5 s) and cut the peer off without
            // it (the stuck viewer of test_reliability_slow.py). The shim serves this callback
            // without a system call when the last write went out whole, hence the check here.
            if lws_send_pipe_choked(wsi) != 0 {
                scws_request_writable_when_room(wsi)
                return 0
            }
            if state.closeCode == nil { (state.closeCode, state.closeReason) = (close.code, close.reason) }
            LWS.setCloseReason(wsi, close.code, close.reason)
            state.closeHandedOver = true
            return -1
        }
        if state.compressing != nil {
            // Guard only: lws is still emitting the last message from its buffer; wait it out.
            if lws_send_pipe_choked(wsi) != 0 {
                scws_request_writable(wsi)
                return 0
            }
            state.compressing = nil
        }
        return writePending(state) == nil ? -1 : 0
    }

    func closed(_ wsi: OpaquePointer) {
        pendingUpgrades[wsi] = nil
        guard let state = connectionsByWSI.removeValue(forKey: wsi) else { return }
        connections[state.id] = nil
        statsBox.withLock { $0.openConnections -= 1 }
        delegate.server(self, didClose: state.id, code: state.closeCode, reason: state.closeReason)
        stopIfDrained()
    }
}

extension Optional {
    /// Returns the value and leaves nil behind.
    mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

/// Decodes the payload of a received close frame: 2-byte big-endian code, then a UTF-8 reason.
func parseClosePayload(_ payload: UnsafeRawBufferPointer) -> (CloseCode?, String) {
    guard payload.count >= 2 else { return (nil, "") }
    let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
    let reason = String(decoding: payload[2...], as: UTF8.self)
    return (CloseCode(rawValue: code), reason)
}
