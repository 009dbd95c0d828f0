import Testing
@testable import WebSockets

@Suite("UTF8Check agrees with the standard library's validator")
struct UTF8CheckTests {
    private func check(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { UTF8Check.isValid($0) }
    }

    private func reference(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    @Test("edge cases: overlongs, surrogates, past U+10FFFF, truncated sequences, long ASCII runs")
    func edgeCases() {
        let cases: [[UInt8]] = [
            [], Array("plain ascii that is longer than eight bytes".utf8), Array("héllo wörld …".utf8),
            Array("🎉 emoji after ascii run 12345678".utf8), [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80],
            [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xFF], [0x80], [0xE2, 0x82], Array("12345678".utf8) + [0xE2, 0x82], [0xE2, 0x82, 0x41],
            Array("abcdefg".utf8) + [0xC3, 0xA9] + Array("abcdefgh".utf8),
        ]
        for bytes in cases {
            #expect(check(bytes) == reference(bytes), "bytes \(bytes)")
        }
    }

    @Test("random byte strings biased towards UTF-8 shapes")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xA0, 0x9F, 0x90, 0x8F]
        for _ in 0..<5000 {
            let length = Int.random(in: 0...24, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            #expect(check(bytes) == reference(bytes), "bytes \(bytes)")
        }
    }
}
