import Testing
@testable import SceneFiles

/// The line-keeping JSON reader: RFC 8259 exactly, with each value's line.
@Suite("Scene JSON reader")
struct SceneJSONReaderTests {
    private func parse(_ text: String) throws(SceneJSONSyntaxError) -> SceneJSON {
        try SceneJSONReader.parse(Array(text.utf8))
    }

    private func syntaxError(_ text: String) -> SceneJSONSyntaxError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func valuesKeepTheLineTheyStartOn() throws {
        let root = try parse("{\n  \"a\": [1,\n    \"two\"],\n\n  \"b\": {\"c\": null}\n}")
        guard case .object(let members) = root.kind else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "b"] && members.map(\.line) == [2, 5])
        guard case .array(let elements) = members[0].value.kind else { Issue.record("not an array"); return }
        #expect(elements.map(\.line) == [2, 3])
        #expect(root.line == 1 && members[1].value.line == 5)
    }

    @Test func stringsDecodeEveryEscape() throws {
        let root = try parse(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00", "é"]"#)
        guard case .array(let elements) = root.kind else { Issue.record("not an array"); return }
        let texts = elements.compactMap { if case .string(let s) = $0.kind { s } else { nil } }
        #expect(texts == ["a\"b\\c/d\u{8}\u{C}\n\r\t", "é😀", "é"])
    }

    @Test func numbersFollowTheGrammarAndOverflowToInfinity() throws {
        let root = try parse("[0, -0.5, 12e2, 1E-2, 1e999, -1e999]")
        guard case .array(let elements) = root.kind else { Issue.record("not an array"); return }
        let numbers = elements.compactMap { if case .number(let n) = $0.kind { n } else { nil } }
        #expect(numbers == [0, -0.5, 1200, 0.01, .infinity, -.infinity])
        for bad in ["01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity"] {
            #expect(syntaxError("[\(bad)]") != nil, "\(bad)")
        }
    }

    @Test func malformedDocumentsSayWhereAndWhy() {
        let cases: [(String, Int, String, String)] = [
            ("{\"a\": 1,}", 1, "$", "expected a field name in double quotes"),
            ("{\"a\" 1}", 1, "$", "expected ':' after field name \"a\""),
            ("[1 2]", 1, "$", "expected ',' or ']' in an array"),
            ("{\"a\": [\n1,\n", 3, "$.a[1]", "unexpected end of file"),
            ("{\"a\": \"x\ny\"}", 1, "$.a", "a control character in a string (line breaks must be written \\n)"),
            ("{\"a\": \"\\x\"}", 1, "$.a", "unknown escape '\\x' in a string"),
            ("{\"a\": \"\\ud800\"}", 1, "$.a", "a \\u escape of a high surrogate must be followed by a low one"),
            ("{} {}", 1, "$", "unexpected text after the JSON document"),
            ("{\"a b\": tru}", 1, "$[\"a b\"]", "unexpected word (expected true)"),
            ("", 1, "$", "unexpected end of file"),
        ]
        for (text, line, path, message) in cases {
            let error = syntaxError(text)
            #expect(error?.line == line && error?.path == path && error?.message == message, "\(text): \(String(describing: error))")
        }
        #expect(syntaxError(String(repeating: "[", count: 40) + String(repeating: "]", count: 40))?.message == "nested deeper than 32 levels")
        #expect(syntaxError("\"\u{FEFF}\"") == nil && syntaxError("\u{FEFF}{}") == nil, "a byte-order mark is tolerated")
        #expect(syntaxError("[\"\\u00\"]")?.message == "a \\u escape needs four hex digits")
        #expect((try? SceneJSONReader.parse([0x22, 0xFF, 0x22])) == nil, "invalid UTF-8 in a string")
    }
}
