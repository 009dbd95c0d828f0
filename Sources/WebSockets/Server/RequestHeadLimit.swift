internal import CLibWebSockets
internal import CWebSocketsShim

/// The size of a request's head (request line and headers, as the client sent them), so one over
/// `WebSocketServerConfiguration.maxHTTPHeaderBytes` gets a 431 rather than silence.
///
/// libwebsockets 4.1.6 keeps a request's headers in a buffer of fixed size, drops the connection
/// without an answer when they overflow it, and offers no way to ask how much of it a request
/// used. So its buffer is made larger than the limit (`lwsBufferBytes`), and the limit is checked
/// on what the kernel received on the connection since the previous request there (less a body's
/// declared length). Only a head past lws's buffer is still dropped unanswered.
struct RequestHeadMeter {
    /// What a request on each keep-alive connection had received when it was handled.
    private var marks: [OpaquePointer: Int64] = [:]

    /// lws's header buffer: the most it can address (64 KiB − 1), so that a head of a few times the
    /// limit is still read and answered. lws stores the values of headers it knows and the names
    /// and values of others plus a dozen bytes each, so 2,000 small unknown headers (24 KB as sent)
    /// fill it. It is allocated per connection only while its request head is read.
    static let lwsBufferBytes = 65535

    /// Bytes of the request being handled on `wsi`; `keepMark` remembers where it ended, for the
    /// next request on a keep-alive connection (an upgrade is the connection's last request).
    mutating func bytes(of wsi: OpaquePointer, keepMark: Bool) -> Int? {
        let received = scws_tcp_bytes_received(lws_get_socket_fd(wsi))
        guard received >= 0 else { return nil }
        let before = keepMark ? marks.updateValue(received, forKey: wsi) : marks.removeValue(forKey: wsi)
        let body = LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int64($0) } ?? 0
        return Int(max(0, received - (before ?? 0) - max(0, body)))
    }

    mutating func forget(_ wsi: OpaquePointer) { marks[wsi] = nil }
    mutating func forgetAll() { marks.removeAll() }

    /// The reason phrases of the statuses the server refuses with.
    static func phrase(_ status: UInt32) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}

extension WebSocketServer {
    /// 431 for a request whose head is over the limit, else nil.
    func headRefusal(_ wsi: OpaquePointer, keepMark: Bool) -> (status: UInt32, message: String)? {
        guard let bytes = requestHeads.bytes(of: wsi, keepMark: keepMark), bytes > configuration.maxHTTPHeaderBytes else {
            return nil
        }
        return (431, "request line and headers are \(bytes) bytes; the limit is \(configuration.maxHTTPHeaderBytes)")
    }

    /// Writes a refusal: an HTTP/1.1 status, a plain-text reason and "connection: close".
    /// False if it could not be written (the connection should then be dropped).
    func writeRefusal(_ wsi: OpaquePointer, _ refusal: (status: UInt32, message: String)) -> Bool {
        scws_http_refuse(wsi, refusal.status, RequestHeadMeter.phrase(refusal.status), refusal.message + "\n") == 0
    }
}
