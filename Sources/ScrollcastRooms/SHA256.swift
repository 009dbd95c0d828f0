internal import CCrypto

/// SHA-256 (FIPS 180-4), for digests of driver keys: libcrypto's (OpenSSL), through the small
/// CCrypto module rather than libwebsockets, so the room layer does not depend on the transport
/// for it (docs/design.md).
enum SHA256 {
    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        // libcrypto fails here only without memory or a working default provider: nothing a
        // room could carry on without, as a lock it cannot check is no lock.
        guard scrollcast_sha256(message, message.count, &digest) == 1 else {
            fatalError("libcrypto could not compute SHA-256")
        }
        return digest
    }
}
