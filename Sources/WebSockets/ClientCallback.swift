import CLibWebSockets
import CWebSocketsShim

/// The protocol callback for every client connection.
func clientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let client = Unmanaged<WebSocketClient>.fromOpaque(owner).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        client.loop.drainJobs()
        return 0
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        client.failed(wsi, reason: why)
        return 0
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        return client.established(wsi)
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return client.receive(wsi, bytes)
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return client.writeable(wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if let state = client.connection(for: wsi) {
            state.peerClosed = true
            state.queue.removeAll()
            if state.closeCode == nil { (state.closeCode, state.closeReason) = parseClosePayload(bytes) }
        }
        return 0
    case LWS_CALLBACK_CLIENT_CLOSED:
        client.closed(wsi)
        return 0
    case LWS_CALLBACK_WSI_DESTROY:
        // Safety net: a connection that vanished without any other report still gets one.
        if let state = client.connection(for: wsi) {
            if state.wsi == nil { client.failed(wsi, reason: "connection closed before the handshake completed") }
            else { client.closed(wsi) }
        }
        return 0
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

extension WebSocketClient {
    func failed(_ wsi: OpaquePointer, reason: String) {
        guard let state = connection(for: wsi), state.wsi == nil else { return }
        connections[state.id] = nil
        delegate.client(self, didFailToConnect: state.id, reason: reason)
        stopIfDrained()
    }

    func established(_ wsi: OpaquePointer) -> Int32 {
        guard let state = connection(for: wsi) else { return -1 }
        state.wsi = wsi
        delegate.client(self, didConnect: state.id)
        if !state.queue.isEmpty || state.pendingClose != nil { lws_callback_on_writable(wsi) }
        return 0
    }

    func receive(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
        guard let state = connection(for: wsi) else { return -1 }
        let final = lws_is_final_fragment(wsi) != 0
        let binary = lws_frame_is_binary(wsi) != 0
        let id = state.id
        let outcome = state.assembler.appendInPlace(chunk, binary: binary, final: final) { bytes, isBinary in
            if isBinary {
                delegate.client(self, didReceive: .binary(Array(bytes)), from: id)
            } else {
                delegate.client(self, didReceiveText: bytes, from: id)
            }
        }
        let close: (CloseCode, String)
        switch outcome {
        case .incomplete, .delivered: return 0
        case .tooBig: close = (.messageTooBig, "message too big")
        case .invalidUTF8: close = (.invalidPayload, "invalid UTF-8 in text message")
        }
        if state.closeCode == nil { (state.closeCode, state.closeReason) = close }
        LWS.setCloseReason(wsi, close.0, close.1)
        return -1
    }

    func writeable(_ wsi: OpaquePointer) -> Int32 {
        guard let state = connection(for: wsi), !state.peerClosed else { return 0 }
        // A second -1 while lws sends the close frame would make it drop the socket at once.
        if state.closeHandedOver { return 0 }
        // Guard only: if lws is still emitting the last message from the scratch buffer, wait.
        if state.compressing {
            if lws_send_pipe_choked(wsi) != 0 {
                lws_callback_on_writable(wsi)
                return 0
            }
            state.compressing = false
        }
        if let close = state.pendingClose, close.immediate || state.queue.isEmpty {
            if state.closeCode == nil { (state.closeCode, state.closeReason) = (close.code, close.reason) }
            LWS.setCloseReason(wsi, close.code, close.reason)
            state.closeHandedOver = true
            return -1
        }
        guard let message = state.queue.popFirst() else { return 0 }
        guard write(message, on: wsi) else { return -1 }
        state.compressing = scws_last_write_left_pending() != 0
        if state.compressing || !state.queue.isEmpty || state.pendingClose != nil { lws_callback_on_writable(wsi) }
        return 0
    }

    func closed(_ wsi: OpaquePointer) {
        guard let state = connection(for: wsi), state.wsi != nil else { return }
        connections[state.id] = nil
        delegate.client(self, didClose: state.id, code: state.closeCode, reason: state.closeReason)
        stopIfDrained()
    }
}
