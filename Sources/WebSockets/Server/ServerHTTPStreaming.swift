internal import CLibWebSockets
internal import CWebSocketsShim
import Glibc

/// The service thread's table of streamed HTTP responses (`HTTPResponseStream`): which
/// connection each belongs to, so a producer's wake-up finds its socket, and a socket that
/// closes cancels its producer.
final class HTTPStreamTable {
    var byWSI: [OpaquePointer: (id: UInt64, stream: HTTPResponseStream)] = [:]
    var wsiByID: [UInt64: OpaquePointer] = [:]
    var nextID: UInt64 = 0
}

extension WebSocketServer {
    /// Bytes a streamed response may hold unsent before its producer waits.
    public static let httpStreamBufferLimit = 256 * 1024
    /// Seconds a streamed response may go without the client taking a piece before the
    /// connection is cut (a reader that stopped reading would otherwise hold its producer forever).
    public static let httpStreamStallSeconds = 30

    /// Starts a streamed response on `wsi`: `start` gets the stream at once (on the service
    /// thread) and hands it to whoever produces the body. Returns what the HTTP callback returns.
    func beginStream(_ wsi: OpaquePointer, includeBody: Bool, _ start: (HTTPResponseStream) -> Void) -> Int32 {
        let table = httpStreams
        table.nextID += 1
        let id = table.nextID
        let stream = HTTPResponseStream(bufferLimit: Self.httpStreamBufferLimit, wantsBody: includeBody) { [self] in
            loop.execute { [self] in streamHasMore(id) }
        }
        table.byWSI[wsi] = (id, stream)
        table.wsiByID[id] = wsi
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(Self.httpStreamStallSeconds))
        start(stream)
        return 0
    }

    private func streamHasMore(_ id: UInt64) {
        guard let wsi = httpStreams.wsiByID[id] else { return }
        scws_request_writable(wsi)
    }

    /// HTTP_WRITEABLE for a connection with a streamed response: writes one queued item.
    /// Nil when the connection has no stream (the caller then writes a whole body, if any).
    func writeStream(_ wsi: OpaquePointer) -> Int32? {
        guard let (_, stream) = httpStreams.byWSI[wsi] else { return nil }
        guard let item = stream.next() else { return 0 }
        switch consume item {  // consumed, so a piece's buffer is held only by `framed` below
        case let .head(status, contentType, headers):
            let response = HTTPResponse(status: status, contentType: contentType, body: [],
                                        headers: headers + [("transfer-encoding", "chunked")])
            guard writeHead(wsi, response, contentLength: UInt64.max) == 0 else { return -1 }
            if !stream.wantsBody {
                forgetStream(wsi, cancel: true)
                return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
            }
        case .piece(var framed, _):
            let pre = Int(scws_lws_pre())
            let written = framed.withUnsafeMutableBufferPointer { buffer in
                lws_write(wsi, buffer.baseAddress! + pre, buffer.count - pre, LWS_WRITE_HTTP)
            }
            stream.giveBack(consume framed)
            guard written >= 0 else { return -1 }
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(Self.httpStreamStallSeconds))
        case .end:
            forgetStream(wsi, cancel: false)
            guard stream.wantsBody else { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
            guard writeFinalChunk(wsi) else { return -1 }
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case .abort:
            forgetStream(wsi, cancel: true)
            return -1
        }
        scws_request_writable(wsi)
        return 0
    }

    /// The connection closed (CLOSED_HTTP, or the context is going): its producer is let go.
    func forgetStream(_ wsi: OpaquePointer, cancel: Bool = true) {
        guard let (id, stream) = httpStreams.byWSI.removeValue(forKey: wsi) else { return }
        httpStreams.wsiByID[id] = nil
        if cancel { stream.cancel() }
    }

    /// Every stream's producer is let go (the server stops).
    func cancelAllStreams() {
        for (_, entry) in httpStreams.byWSI { entry.stream.cancel() }
        httpStreams.byWSI.removeAll()
        httpStreams.wsiByID.removeAll()
    }

    /// Writes the status line and headers of `response` (not its body); `contentLength`
    /// `UInt64.max` leaves Content-Length out. Returns 0, or nonzero on failure.
    func writeHead(_ wsi: OpaquePointer, _ response: HTTPResponse, contentLength: UInt64) -> Int32 {
        let names = response.headers.map { strdup($0.0.hasSuffix(":") ? $0.0 : $0.0 + ":") }
        let values = response.headers.map { strdup($0.1) }
        defer {
            names.forEach { free($0) }
            values.forEach { free($0) }
        }
        return response.contentType.withCString { contentType in
            names.map { UnsafePointer($0) }.withUnsafeBufferPointer { namePointers in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                    scws_http_write_headers(
                        wsi, UInt32(clamping: response.status), contentType, contentLength,
                        namePointers.baseAddress, valuePointers.baseAddress, Int32(names.count))
                }
            }
        }
    }

    /// The body's final (empty) chunk, as the last write of the response.
    private func writeFinalChunk(_ wsi: OpaquePointer) -> Bool {
        let pre = Int(scws_lws_pre())
        var buffer = [UInt8](repeating: 0, count: pre) + Array("0\r\n\r\n".utf8)
        return buffer.withUnsafeMutableBufferPointer { buffer in
            lws_write(wsi, buffer.baseAddress! + pre, buffer.count - pre, LWS_WRITE_HTTP_FINAL) >= 0
        }
    }
}
