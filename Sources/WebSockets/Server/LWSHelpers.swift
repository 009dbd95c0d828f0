internal import CLibWebSockets
internal import CWebSocketsShim

/// Small readers over lws calls that fill C buffers; service thread only.
enum LWS {
    /// A request header (all fragments joined by lws), nil if absent.
    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = buffer.withUnsafeMutableBufferPointer {
            lws_hdr_copy(wsi, $0.baseAddress, Int32($0.count), token)
        }
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The URI arguments joined with "&" (lws keeps each one as a separate, urldecoded fragment).
    static func queryString(_ wsi: OpaquePointer) -> String {
        queryArguments(wsi).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "&")
    }

    /// The peer's numeric address.
    static func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let result = buffer.withUnsafeMutableBufferPointer {
            lws_get_peer_simple(wsi, $0.baseAddress, $0.count)
        }
        guard result != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sets the close code and reason lws sends when the callback then returns -1.
    static func setCloseReason(_ wsi: OpaquePointer, _ code: CloseCode, _ reason: String) {
        // RFC 6455 caps a control frame payload at 125 bytes: 2 for the code, 123 for the reason.
        var bytes = Array(reason.utf8.prefix(123))
        while String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        bytes.withUnsafeMutableBufferPointer {
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code.rawValue)), $0.baseAddress, $0.count)
        }
    }

    /// Writes one whole WebSocket message from a buffer with LWS_PRE headroom; false on failure.
    static func write(_ wsi: OpaquePointer, _ storage: UnsafeMutablePointer<UInt8>, count: Int, isText: Bool) -> Bool {
        scws_ws_write(wsi, storage, count, isText ? 0 : 1) >= 0
    }
}
