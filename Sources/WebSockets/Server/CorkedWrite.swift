internal import CLibWebSockets
internal import CWebSocketsShim

/// Several pending messages to one connection leave in one write (the "cork" of uWebSockets).
///
/// The writeable callback used to write one message per callback: `lws_write` frames it and calls
/// `send()`, and anything else pending waited for another `poll()` pass and another callback. A
/// viewer that asked for `applied` messages got each one, then the frame, that way: twice the
/// writes and a pass of delay for the frame behind them (issue 21). Now, without
/// permessage-deflate, the messages waiting for a connection (reliable queue in order, then the
/// latest frame) are framed here (RFC 6455 §5.2: FIN, opcode, unmasked length in 7, 7+16 or
/// 7+64 bits) into one buffer behind `LWS_PRE` bytes of headroom and handed to lws as
/// `LWS_WRITE_RAW`, which on a WebSocket connection goes straight to `lws_issue_raw`: one
/// `send()`, and whatever the kernel does not take lws copies to its own output list and sends
/// before anything else, before it offers the connection as writeable again (the same guarantee a
/// single `lws_write` has). So a slow reader still gets only the newest frame, reliable messages
/// keep their order, and a partial write resumes where it stopped.
///
/// One write carries at most `maxCorkedBytes`, so one connection cannot keep the loop for long;
/// what does not fit waits for the next callback. A lone message, or one as large as the cap,
/// goes through `lws_write` as before (no copy). permessage-deflate compresses message by message
/// inside lws, so those connections keep the one-message path.
struct CorkedWriter {
    /// Most bytes (frame headers included) one corked write carries (the shim lets lws hand
    /// `send()` as much at once: SCWS_TX_PACKET_BYTES).
    static let maxCorkedBytes = 64 * 1024

    private let storage: UnsafeMutablePointer<UInt8>
    /// Bytes of frames after the headroom.
    private(set) var count = 0

    init() {
        storage = .allocate(capacity: lwsPre + Self.maxCorkedBytes)
    }

    /// Frees the buffer; the writer must not be used afterwards.
    func deallocate() { storage.deallocate() }

    /// Size of the frame header for a payload of `length` bytes sent by a server.
    static func headerBytes(forPayload length: Int) -> Int {
        FrameHeader.byteCount(payload: length, masked: false)
    }

    /// Bytes `message` takes on the wire, header included.
    static func framedBytes(_ message: OutboundMessage) -> Int {
        headerBytes(forPayload: message.count) + message.count
    }

    /// Forgets the frames written so far.
    mutating func reset() { count = 0 }

    /// Appends `message` as one final frame; the caller has checked that it fits.
    mutating func append(_ message: OutboundMessage) {
        let length = message.count
        var p = storage + lwsPre + count
        p += FrameHeader.write(opcode: message.isText ? 0x1 : 0x2, payloadLength: length, maskKey: nil, to: p)
        p.update(from: message.storage + lwsPre, count: length)
        count = (p - (storage + lwsPre)) + length
    }

    /// The frames written so far, for tests.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage + lwsPre, count: count)) }

    /// Writes the frames with one call; false when the socket failed.
    func write(to wsi: OpaquePointer) -> Bool {
        scws_raw_write(wsi, storage, count) >= 0
    }
}

extension WebSocketServer {
    /// Writes what `state` has pending (reliable messages in order, then the latest frame): in
    /// one corked write when several wait and the connection is not compressed, else the first
    /// one alone. Returns how many messages it wrote, nil when the socket failed. Asks for another
    /// writeable callback when something is left.
    func writePending(_ state: ServerConnection) -> Int? {
        let wsi = state.wsi
        var sent = 0, bytes = 0, leftBuffered = false
        if !configuration.permessageDeflate, let first = state.reliable.first ?? state.latest,
           CorkedWriter.framedBytes(first) < CorkedWriter.maxCorkedBytes, state.reliable.count + (state.latest == nil ? 0 : 1) > 1 {
            corkedWriter.reset()
            var room = CorkedWriter.maxCorkedBytes
            while let next = state.reliable.first ?? state.latest {
                let framed = CorkedWriter.framedBytes(next)
                guard framed <= room else { break }
                room -= framed
                corkedWriter.append(state.reliable.popFirst() ?? state.latest.take()!)
                sent += 1
                bytes += next.count
            }
            guard corkedWriter.write(to: wsi) else { return nil }
            leftBuffered = lws_partial_buffered(wsi) != 0
        } else {
            guard let message = state.reliable.popFirst() ?? state.latest.take() else { return 0 }
            guard LWS.write(wsi, message.storage, count: message.count, isText: message.isText) else { return nil }
            if scws_last_write_left_pending() != 0 { state.compressing = message }
            sent = 1
            bytes = message.count
        }
        statsBox.withLock {
            if sent > 1 { $0.corkedWrites += 1 }
            if leftBuffered { $0.writesLeftBuffered += 1 }
            $0.messagesSent += sent
            $0.bytesSent += bytes
        }
        if state.compressing != nil || !state.reliable.isEmpty || state.latest != nil || state.pendingClose != nil {
            scws_request_writable(wsi)
        }
        return sent
    }
}
