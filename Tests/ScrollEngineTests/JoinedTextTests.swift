import Testing
@testable import ScrollEngine

/// The engine composes its few texts without `+`, interpolation or `String(Int)` (JoinedText.swift
/// says why); the results must be the very strings those would give.
@Suite("Joined texts")
struct JoinedTextTests {
    @Test("decimalText spells every integer as String(_:) does, signs and edges included")
    func decimalTextMatchesString() {
        var values = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 2025, 3000, Int.max, Int.min, Int.min + 1]
        values += values.filter { $0 != Int.min }.map { -$0 }
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            values.append(Int(truncatingIfNeeded: x >> UInt64(x % 60)))
        }
        for value in values { #expect(decimalText(value) == String(value), "\(value)") }
    }

    @Test("joinedText joins texts, multi-byte ones too")
    func joinedTextJoins() {
        #expect(joinedText("Option ", decimalText(12)) == "Option 12")
        #expect(joinedText("Zürich", " ", "日本", "") == "Zürich 日本")
        #expect(joinedText() == "")
    }
}
