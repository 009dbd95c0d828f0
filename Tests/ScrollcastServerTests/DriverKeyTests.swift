import Testing
@testable import ScrollcastRooms

/// A deterministic generator, so a test can check exactly which bytes become the key.
private struct CountingGenerator: RandomNumberGenerator {
    var state: UInt64 = 0
    mutating func next() -> UInt64 {
        defer { state &+= 0x0101_0101_0101_0101 }
        return state
    }
}

@Suite @RoomActor struct DriverKeyTests {
    @Test func keysAre64LowercaseHexDigits() {
        let key = DriverKey.random()
        #expect(key.hex.count == DriverKey.byteCount * 2)
        #expect(key.hex.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func keysDoNotRepeat() {
        let keys = Set((0..<1000).map { _ in DriverKey.random().hex })
        #expect(keys.count == 1000)
    }

    @Test func keysComeFromTheGeneratorGiven() {
        var a = CountingGenerator()
        var b = CountingGenerator()
        #expect(DriverKey(using: &a).hex == DriverKey(using: &b).hex)
    }

    @Test func onlyTheExactKeyMatches() {
        let key = DriverKey.random()
        #expect(key.matches(key.hex))
        #expect(!key.matches(nil))
        #expect(!key.matches(""))
        #expect(!key.matches(String(key.hex.dropLast())))
        #expect(!key.matches(key.hex + "0"))
        #expect(!key.matches(key.hex.uppercased()) || !key.hex.contains(where: \.isLetter))
        var flipped = Array(key.hex.utf8)
        flipped[0] = flipped[0] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        #expect(!key.matches(String(decoding: flipped, as: UTF8.self)))
        #expect(!DriverKey.matches(expected: nil, candidate: key.hex))
    }

    @Test func constantTimeEqualityIsEquality() {
        let samples: [[UInt8]] = [[], [0], [1], [0, 0], [0, 1], [1, 0], Array("abc".utf8), Array("abd".utf8)]
        for a in samples {
            for b in samples {
                #expect(DriverKey.constantTimeEquals(a, b) == (a == b), "\(a) vs \(b)")
            }
        }
    }

    @Test func descriptionDoesNotLeakTheKey() {
        let key = DriverKey.random()
        #expect(!"\(key)".contains(key.hex))
    }
}

@Suite("Driver key digests")
@RoomActor struct DriverKeyDigestTests {
    @Test("SHA-256 matches FIPS 180-4's examples", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        // Several blocks (checked against Python's hashlib).
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func knownDigests(message: String, digest: String) {
        #expect(DriverKey.digest(of: message) == digest)
    }

    @Test func aKeyMatchesItsDigestAndNothingElseDoes() {
        let key = DriverKey.random().hex
        let digest = DriverKey.digest(of: key)
        #expect(DriverKey.matches(digest: digest, candidate: key))
        #expect(!DriverKey.matches(digest: digest, candidate: String(key.dropLast()) + "x"))
        #expect(!DriverKey.matches(digest: digest, candidate: digest), "the digest itself is no key")
        #expect(!DriverKey.matches(digest: digest, candidate: nil))
        #expect(!DriverKey.matches(digest: nil, candidate: key))
    }
}
