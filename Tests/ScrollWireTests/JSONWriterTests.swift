import Foundation
import Testing
@testable import ScrollWire

@Suite("JSON writer")
struct JSONWriterTests {
    private func written(_ body: (inout JSONWriter) -> Void) -> String {
        var w = JSONWriter()
        body(&w)
        return w.bytes.text
    }

    @Test("strings: quotes, backslashes and control characters escaped; non-ASCII passed as UTF-8")
    func escaping() throws {
        let input = "a\"b\\c\n\r\t\u{08}\u{0C}\u{00}\u{1F}\u{7F}/é😀\u{2028}"
        let out = written { $0.string(input) }
        #expect(out == "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0000\\u001f\u{7F}/é😀\u{2028}\"")
        #expect(Array(out.utf8).contains(0xC3))  // é as raw UTF-8, not \u00e9
        let parsed = try JSONSerialization.jsonObject(with: Data(out.utf8), options: .fragmentsAllowed) as? String
        #expect(parsed == input)
        #expect(try JSONParser.parse(Array(out.utf8)) == .string(input))
    }

    @Test("numbers: integers without a fraction, shortest round-trip otherwise, -0 as 0")
    func numbers() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (64, "64"), (-962.5, "-962.5"), (1.0 / 3.0, "0.3333333333333333"),
            (9_007_199_254_740_991, "9007199254740991"), (9_007_199_254_740_992, "9007199254740992"), (1e16, "1e+16"),
            (1e-7, "1e-07"), (1e300, "1e+300"), (1763800000123.4, "1763800000123.4"), (0.1 + 0.2, "0.30000000000000004"),
        ]
        for (value, expected) in cases {
            let out = written { $0.number(value) }
            #expect(out == expected)
            #expect(Double(out) == value)
        }
    }

    @Test("non-finite numbers are never written: NaN as 0, ±infinity as ±greatest finite")
    func nonFinite() throws {
        #expect(written { $0.number(.nan) } == "0")
        #expect(written { $0.number(.infinity) } == "1.7976931348623157e+308")
        #expect(written { $0.number(-.infinity) } == "-1.7976931348623157e+308")
        var frame = Fixtures.docFrame
        frame.contentOffset = .nan
        frame.indicator.alpha = .infinity
        let bytes = ServerMessageEncoder.frame(frame, input: nil, sentAt: .nan)
        #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
        guard case .frame(let decoded) = try ServerMessageDecoder.decode(bytes) else { Issue.record("not a frame"); return }
        #expect(decoded.offset == 0 && decoded.sentAt == 0 && decoded.indicator.alpha == .greatestFiniteMagnitude)
    }

    @Test("integers and nesting place commas correctly")
    func structure() {
        let out = written { w in
            w.beginObject()
            w.key("a"); w.beginArray(); w.integer(Int.min); w.integer(UInt64.max); w.beginObject(); w.endObject(); w.null(); w.endArray()
            w.key("b"); w.bool(false)
            w.key("c"); w.beginArray(); w.endArray()
            w.endObject()
        }
        #expect(out == #"{"a":[-9223372036854775808,18446744073709551615,{},null],"b":false,"c":[]}"#)
    }

    @Test("an optional object is written whole, or as null")
    func optionalObject() {
        let out = written { w in
            w.beginArray()
            w.optionalObject(Int?.some(7)) { value, w in w.key("v"); w.integer(value) }
            w.optionalObject(Int?.none) { _, w in w.key("never"); w.null() }
            w.integer(1)
            w.endArray()
        }
        #expect(out == #"[{"v":7},null,1]"#)
    }
}
