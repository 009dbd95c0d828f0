internal import CCrypto

/// SHA-256 (FIPS 180-4), for digests of driver keys: libcrypto's, which libwebsockets links
/// already, rather than a hand-written one.
enum SHA256 {
    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        message.withUnsafeBufferPointer { bytes in
            digest.withUnsafeMutableBufferPointer { out in
                // An empty array may have no storage; libcrypto reads nothing for length 0.
                _ = CCrypto.SHA256(bytes.baseAddress ?? UnsafePointer(out.baseAddress!), bytes.count, out.baseAddress)
            }
        }
        return digest
    }
}
