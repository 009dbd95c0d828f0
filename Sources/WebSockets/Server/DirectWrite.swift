internal import CLibWebSockets
internal import CWebSocketsShim

/// Writing a message at once when its connection is idle, instead of queueing it and waiting for a
/// writeable callback.
///
/// The callback costs a round trip through lws's event loop for every message: `lws_callback_on_writable`
/// sets POLLOUT, the next `poll()` (which scans every socket) reports it, lws clears POLLOUT again and
/// calls back. For a frame to an idle viewer that round trip was most of what the server spent beside
/// `send()` itself. A connection is idle when nothing of ours waits for it (reliable queue, latest
/// slot, an unfinished compressed message, a close) and lws holds none of its bytes either; then the
/// message goes to `send()` now, and what the kernel does not take lws keeps and sends first, asking
/// for a writeable callback itself, so the connection is busy again and the next frames wait in the
/// latest slot as before (a slow reader still gets only the newest frame).
///
/// Never at once:
/// - to the connection whose RECEIVE callback is running: lws may owe it a pong for a ping in the
///   same read, and a reply written now would overtake it (Autobahn 5.6, 5.19, 5.20);
/// - with permessage-deflate: lws may keep a compressed message half emitted, which only the
///   writeable callback finishes;
/// - while the loop is behind (its last timer fired more than
///   `writeAtOnceLatenessLimitMilliseconds` late): written at once, every frame of every late tick
///   would be sent, where the latest slot merges the ticks that come before the connection's
///   writeable callback into one write (at 1,500 viewers, writes at once made p50 input-to-frame
///   several times longer: bench/where-the-time-goes.md §7).
extension WebSocketServer {
    /// Whether the service loop's last timer fired later than the configured limit.
    var loopIsBehind: Bool {
        Double(loop.lastTimerLatenessNanoseconds) > configuration.writeAtOnceLatenessLimitMilliseconds * 1_000_000
    }

    /// Whether a message for `state` may be written now rather than queued.
    private func mayWriteAtOnce(_ state: ServerConnection) -> Bool {
        configuration.writesAtOnce && !configuration.permessageDeflate
            && state.reliable.isEmpty && state.latest == nil && state.compressing == nil
            && state.pendingClose == nil && !state.peerClosed && !state.closeHandedOver
            && receivingWSI != state.wsi
            && !loopIsBehind
            && lws_partial_buffered(state.wsi) == 0
    }

    /// Writes `message` now if `state` is idle; false (nothing done) when it must be queued.
    func writeAtOnceIfIdle(_ state: ServerConnection, _ message: OutboundMessage) -> Bool {
        guard mayWriteAtOnce(state) else { return false }
        guard LWS.write(state.wsi, message.storage, count: message.count, isText: message.isText) else {
            writeAtOnceFailed(state)
            return true
        }
        statsBox.withLock {
            $0.messagesSent += 1
            $0.bytesSent += message.count
            $0.messagesWrittenAtOnce += 1
        }
        return true
    }

    /// Queues `leading` reliably and `message` in the latest slot, then writes them together now
    /// (one corked write, CorkedWrite.swift) if the connection was idle. Returns whether the
    /// frame replaced one never sent. Used by `sendLatest(_:after:to:)`.
    func queueAndWriteIfIdle(_ state: ServerConnection, _ leading: [OutboundMessage], _ message: OutboundMessage) -> Bool {
        let idle = mayWriteAtOnce(state)
        for reliable in leading { state.reliable.append(reliable) }
        let replaced = state.latest != nil
        state.latest = message
        if replaced { statsBox.withLock { $0.latestReplaced += 1 } }
        guard idle else {
            scws_request_writable(state.wsi)
            return replaced
        }
        if let written = writePending(state) {
            statsBox.withLock { $0.messagesWrittenAtOnce += written }
        } else {
            writeAtOnceFailed(state)
        }
        return replaced
    }

    /// The socket is gone (reset, broken pipe). Outside a callback there is no -1 to return, so
    /// lws is asked to close it on its next pass; nothing more is written meanwhile.
    private func writeAtOnceFailed(_ state: ServerConnection) {
        state.peerClosed = true
        state.reliable.removeAll()
        state.latest = nil
        scws_kill_async(state.wsi)
    }
}
