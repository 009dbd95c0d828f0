internal import CLibWebSockets
internal import CWebSocketsShim

/// The protocol callback for every client connection (lws RAW sockets; the WebSocket protocol is ours).
func clientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return 0 }
    let client = Unmanaged<WebSocketClient>.fromOpaque(owner).takeUnretainedValue()
    client.loop.passDidWork = true
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        client.loop.drainJobs()
        return 0
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        if let state = client.connection(for: wsi), state.failureReason == nil { state.failureReason = why }
        client.ended(wsi)
        return 0
    case LWS_CALLBACK_RAW_CONNECTED:
        return client.tcpConnected(wsi)
    case LWS_CALLBACK_RAW_RX:
        return client.receive(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
    case LWS_CALLBACK_RAW_WRITEABLE:
        return client.writeable(wsi)
    case LWS_CALLBACK_RAW_CLOSE, LWS_CALLBACK_WSI_DESTROY:
        // WSI_DESTROY is the safety net: a connection that vanished without any other report gets one.
        client.ended(wsi)
        return 0
    default:
        return 0
    }
}

extension WebSocketClient {
    func tcpConnected(_ wsi: OpaquePointer) -> Int32 {
        guard let state = connection(for: wsi) else { return -1 }
        state.phase = .handshaking
        lws_callback_on_writable(wsi)
        scheduleTimeout(state.id, afterMilliseconds: Self.handshakeTimeoutMilliseconds,
                        stillPending: { $0.phase != .open },
                        reason: "no handshake response from the server within \(Int(Self.handshakeTimeoutMilliseconds / 1000)) s")
        return 0
    }

    func receive(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
        guard let state = connection(for: wsi) else { return -1 }
        var frames = chunk
        if state.phase != .open {
            guard state.phase == .handshaking else { return -1 }
            switch state.handshake.feed(chunk) {
            case .incomplete:
                return 0
            case .failed(let why):
                state.failureReason = why
                return -1
            case .upgraded(let bodyOffset):
                state.phase = .open
                delegate.client(self, didConnect: state.id)
                if !state.queue.isEmpty || state.pendingClose != nil { lws_callback_on_writable(wsi) }
                frames = UnsafeRawBufferPointer(rebasing: chunk[bodyOffset...])
            }
        }
        if state.stopReading {
            // After our close went out for a broken stream, whatever comes is the server's answer:
            // the handshake is as done as it will get.
            return state.closeSent ? -1 : 0
        }
        guard !frames.isEmpty else { return 0 }
        let id = state.id
        let outcome = state.parser.consume(frames) { event in
            switch event {
            case .text(let bytes):
                delegate.client(self, didReceiveText: bytes, from: id)
            case .binary(let bytes):
                delegate.client(self, didReceiveBinary: bytes, from: id)
            case .ping(let payload):
                guard !state.closeSent else { return }
                state.pongs.append(Array(payload))
                lws_callback_on_writable(wsi)
            case .close(let code, let reason):
                state.closeReceived = true
                state.receivedCode = code
                state.noteClose(code, reason)
            }
        }
        switch outcome {
        case .needMore:
            return 0
        case .closed:
            state.stopReading = true
            // Both close frames have crossed: the close handshake is done and the socket can go.
            if state.closeSent { return -1 }
            state.queue.removeAll()
            state.pongs.removeAll()
            lws_callback_on_writable(wsi)
            return 0
        case .failed(let code, let reason):
            state.stopReading = true
            state.noteClose(code, reason)
            state.queue.removeAll()
            state.pongs.removeAll()
            if state.closeSent { return -1 }
            state.pendingClose = PendingClose(code: code, reason: reason, immediate: true)
            lws_callback_on_writable(wsi)
            return 0
        }
    }

    func writeable(_ wsi: OpaquePointer) -> Int32 {
        guard let state = connection(for: wsi), !state.closeSent else { return 0 }
        writer.reset()
        switch state.phase {
        case .connecting:
            return 0
        case .handshaking:
            guard !state.requestSent else { return 0 }
            let request = state.handshake.request(hostHeader: state.hostHeader, pathAndQuery: state.target.pathAndQuery, origin: state.origin)
            request.withUnsafeBytes { writer.appendRaw($0) }
            state.requestSent = true
        case .open:
            if state.closeReceived {
                writer.appendCloseEcho(state.receivedCode, maskKey: maskKeys.next())
                markCloseSent(state)
            } else {
                fillFrames(state)
            }
        }
        guard writer.count > 0 else { return 0 }
        guard scws_raw_write(wsi, writer.storage, writer.count) >= 0 else { return -1 }
        if !state.closeSent && (!state.pongs.isEmpty || !state.queue.isEmpty || state.pendingClose != nil) {
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// Pongs first, then queued messages up to one batch, then a close that is due.
    private func fillFrames(_ state: ClientConnection) {
        for payload in state.pongs {
            payload.withUnsafeBytes { writer.append(.pong, payload: $0, maskKey: maskKeys.next()) }
        }
        state.pongs.removeAll()
        if let close = state.pendingClose, close.immediate {
            writer.appendClose(close.code, reason: close.reason, maskKey: maskKeys.next())
            state.noteClose(close.code, close.reason)
            markCloseSent(state)
            return
        }
        while writer.count < Self.writeBatchBytes, let message = state.queue.popFirst() {
            let payload = UnsafeRawBufferPointer(start: message.storage + lwsPre, count: message.count)
            writer.append(message.isText ? .text : .binary, payload: payload, maskKey: maskKeys.next())
        }
        if let close = state.pendingClose, state.queue.isEmpty {
            writer.appendClose(close.code, reason: close.reason, maskKey: maskKeys.next())
            state.noteClose(close.code, close.reason)
            markCloseSent(state)
        }
    }

    /// After our close frame nothing more is written; the server gets a while to finish the handshake.
    private func markCloseSent(_ state: ClientConnection) {
        state.closeSent = true
        state.pendingClose = nil
        state.queue.removeAll()
        scheduleTimeout(state.id, afterMilliseconds: Self.closeTimeoutMilliseconds, stillPending: { _ in true })
    }

    /// The connection is gone: its one final report (failure before the upgrade, close after).
    func ended(_ wsi: OpaquePointer) {
        guard let state = connection(for: wsi) else { return }
        connections[state.id] = nil
        state.wsi = nil
        if state.phase == .open {
            delegate.client(self, didClose: state.id, code: state.closeCode, reason: state.closeReason)
        } else {
            let why = state.failureReason ?? "connection closed before the handshake completed"
            delegate.client(self, didFailToConnect: state.id, reason: why)
        }
        stopIfDrained()
    }
}
