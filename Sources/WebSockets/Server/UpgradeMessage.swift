internal import CLibWebSockets
internal import CWebSocketsShim

/// A message carried in the upgrade URL (`WebSocketServerConfiguration.firstMessageParameter`):
/// the client's first message, sent with the upgrade so its answer can follow the 101 at once
/// instead of a round trip later.
///
/// libwebsockets splits the query at every `&` and `;` that is not percent-encoded, and
/// percent-decodes each argument (an unencoded `+` reads as a space); the value is the decoded
/// bytes after the first `=`. Only a malformed percent sign is refused by lws itself (403).
enum UpgradeMessage {
    /// What the query holds for `parameter`: nothing, its value, or a refusal of the upgrade.
    enum Reading: Equatable {
        case absent
        case message([UInt8])
        case refused(status: UInt32, message: String)
    }

    /// Finds `parameter` among the decoded query `arguments` ("name=value" each, as lws keeps them).
    /// More than one, or a value over `maxBytes`, refuses the upgrade: which of two messages is
    /// meant cannot be guessed, and an oversized one is better refused before a connection exists.
    static func read(_ arguments: [[UInt8]], parameter: String, maxBytes: Int) -> Reading {
        let prefix = Array((parameter + "=").utf8)
        let values = arguments.filter { $0.starts(with: prefix) }.map { Array($0.dropFirst(prefix.count)) }
        guard let value = values.first else { return .absent }
        if values.count > 1 { return .refused(status: 400, message: "more than one '\(parameter)' in the URL") }
        if value.count > maxBytes {
            return .refused(status: 414, message: "'\(parameter)' in the URL is \(value.count) bytes; the limit is \(maxBytes)")
        }
        return .message(value)
    }
}

extension LWS {
    /// The URI arguments as lws keeps them: split at unencoded `&` and `;`, each percent-decoded.
    static func queryArguments(_ wsi: OpaquePointer) -> [[UInt8]] {
        let total = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        guard total > 0 else { return [] }
        var arguments: [[UInt8]] = []
        var buffer = [CChar](repeating: 0, count: total + 1)
        for index in 0..<256 {
            let copied = buffer.withUnsafeMutableBufferPointer {
                lws_hdr_copy_fragment(wsi, $0.baseAddress, Int32($0.count), WSI_TOKEN_HTTP_URI_ARGS, Int32(index))
            }
            guard copied >= 0 else { break }
            arguments.append(buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) })
        }
        return arguments
    }
}

extension WebSocketServer {
    /// The upgrade's message (nil when none is configured or sent) or a refusal of the upgrade.
    func upgradeMessage(_ wsi: OpaquePointer) -> (message: [UInt8]?, refusal: (status: UInt32, message: String)?) {
        guard let parameter = configuration.firstMessageParameter else { return (nil, nil) }
        switch UpgradeMessage.read(LWS.queryArguments(wsi), parameter: parameter,
                                   maxBytes: configuration.maxFirstMessageParameterBytes) {
        case .absent: return (nil, nil)
        case .message(let bytes): return (bytes, nil)
        case .refused(let status, let message): return (nil, (status, message))
        }
    }

    /// Hands the upgrade's message to the delegate as the connection's first text message, as if
    /// it had come in a frame: counted, checked for UTF-8 (close 1007), then delivered. Nothing is
    /// delivered to a connection the delegate closed while it opened.
    func deliverUpgradeMessage(_ bytes: [UInt8], to state: ServerConnection) {
        guard state.pendingClose == nil, connections[state.id] === state else { return }
        statsBox.withLock {
            $0.messagesReceived += 1
            $0.bytesReceived += bytes.count
        }
        bytes.withUnsafeBytes { raw in
            guard UTF8Check.isValid(raw) else {
                _ = closeNow(state, .invalidPayload, "invalid UTF-8 in the message in the URL")
                return
            }
            delegate.server(self, didReceiveText: raw, from: state.id)
        }
    }
}
