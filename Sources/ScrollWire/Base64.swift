/// Base64 (RFC 4648, the standard alphabet, with `=` padding), for the engine's state bytes in a
/// version-1 snapshot (docs/protocol.md, "The inputs stream"). The module has no Foundation.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` as base64 text.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var chunk = UInt32(bytes[i]) << 16
            if n > 1 { chunk |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { chunk |= UInt32(bytes[i + 2]) }
            for k in 0..<4 {
                out.append(k <= n ? alphabet[Int((chunk >> UInt32(18 - 6 * k)) & 0x3f)] : UInt8(ascii: "="))
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil unless it is base64 as `encode` writes it (length a
    /// multiple of 4, padding only at the end, no other characters, unused bits zero).
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            let last = i + 4 == chars.count
            var chunk: UInt32 = 0
            var padding = 0
            for k in 0..<4 {
                let c = chars[i + k]
                if c == UInt8(ascii: "=") {
                    guard last, k >= 2 else { return nil }
                    padding += 1
                    chunk <<= 6
                    continue
                }
                guard padding == 0, let value = alphabet.firstIndex(of: c) else { return nil }
                chunk = chunk << 6 | UInt32(value)
            }
            let produced = 3 - padding
            let unused = chunk & (padding == 2 ? 0xffff : padding == 1 ? 0xff : 0)
            guard unused == 0 else { return nil }
            for k in 0..<produced { out.append(UInt8(truncatingIfNeeded: chunk >> UInt32(16 - 8 * k))) }
            i += 4
        }
        return out
    }
}
