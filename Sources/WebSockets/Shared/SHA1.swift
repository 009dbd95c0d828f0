internal import CLibWebSockets

/// SHA-1 through libwebsockets' own: the handshake's accept key and the static files' versions.
enum SHA1 {
    /// The 20-byte digest of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { output in
                _ = lws_SHA1(source.baseAddress, source.count, output.baseAddress)
            }
        }
        return digest
    }
}
