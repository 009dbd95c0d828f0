/// The secret that lets a viewer drive a locked room.
///
/// The server makes it, never the client: a key chosen by whoever created the room could be
/// guessed (or be empty). It is 32 random bytes from the system's cryptographically secure
/// generator (`getrandom`/`/dev/urandom` on Linux), written as 64 lowercase hex digits, which also
/// satisfies the protocol's `driverKey` syntax. It is compared in constant time and never logged.
public struct DriverKey: Sendable, Hashable, CustomStringConvertible {
    /// Random bytes in a key.
    public static let byteCount = 32

    /// The key as sent in `snapshot.driverKey` and accepted in `join.driverKey`.
    public let hex: String

    /// A fresh key from `generator` (the system's secure generator unless a test passes its own).
    public init<Generator: RandomNumberGenerator>(using generator: inout Generator) {
        var hex = ""
        hex.reserveCapacity(Self.byteCount * 2)
        let digits = Array("0123456789abcdef")
        for _ in 0..<Self.byteCount {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        self.hex = hex
    }

    /// A fresh key from `SystemRandomNumberGenerator`.
    public static func random() -> DriverKey {
        var system = SystemRandomNumberGenerator()
        return DriverKey(using: &system)
    }

    /// Whether `candidate` is this key. Takes the same time for every candidate of a given length
    /// whatever its content (no early exit at the first differing byte), so timing does not leak
    /// how much of a guess was right.
    public func matches(_ candidate: String?) -> Bool {
        DriverKey.matches(expected: hex, candidate: candidate)
    }

    /// Whether `candidate` equals the room key `expected`, in constant time; false if either is nil.
    public static func matches(expected: String?, candidate: String?) -> Bool {
        guard let expected, let candidate else { return false }
        return constantTimeEquals(Array(expected.utf8), Array(candidate.utf8))
    }

    /// The digest a store keeps instead of the key: SHA-256 of the key's UTF-8, as 64 lowercase
    /// hex digits. Keys are 256 random bits, so no salt is needed against guessing.
    public static func digest(of key: String) -> String {
        let digits = Array("0123456789abcdef")
        return String(SHA256.hash(Array(key.utf8)).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    /// Whether `candidate` hashes to `expectedDigest` (a room's stored lock), in constant time;
    /// false if either is nil.
    public static func matches(digest expectedDigest: String?, candidate: String?) -> Bool {
        guard let expectedDigest, let candidate else { return false }
        return constantTimeEquals(Array(expectedDigest.utf8), Array(digest(of: candidate).utf8))
    }

    /// Byte-wise comparison whose running time depends only on the lengths.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        // Walk the expected key's length whatever the candidate's, reading the candidate cyclically.
        for index in 0..<a.count {
            let other = b.isEmpty ? 0 : b[index % b.count]
            difference |= a[index] ^ other
        }
        return difference == 0
    }

    /// Redacted, so a key interpolated into a log line by mistake does not leak.
    public var description: String { "DriverKey(redacted)" }
}
