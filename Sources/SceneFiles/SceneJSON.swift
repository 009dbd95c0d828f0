/// A JSON value as read from a scene file, with the line it starts on, so that every error about
/// it can name that line (Foundation's `JSONSerialization` keeps no positions).
public struct SceneJSON: Sendable {
    /// What the value is.
    public enum Kind: Sendable {
        case null
        case bool(Bool)
        /// A number as a double; a literal too large for one reads as ±infinity, so the decoder
        /// can call it non-finite instead of losing it.
        case number(Double)
        case string(String)
        case array([SceneJSON])
        /// Members in file order, each with the line of its key. Duplicate keys are kept (the
        /// decoder reports them).
        case object([Member])
    }

    /// One `"key": value` pair of an object.
    public struct Member: Sendable {
        public var key: String
        /// Line of the key.
        public var line: Int
        public var value: SceneJSON
    }

    public var kind: Kind
    /// 1-based line where the value starts.
    public var line: Int

    /// The JSON name of the value's type, for "must be a number, got a string" messages.
    public var typeName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A syntax error: where the reader stopped and why.
public struct SceneJSONSyntaxError: Error, Sendable {
    public var line: Int
    /// The path of the value being read when it stopped (e.g. `$.sections[2].rows`).
    public var path: String
    public var message: String
}

/// Reads RFC 8259 JSON from UTF-8 bytes, keeping each value's line. Nesting is bounded
/// (`SceneFileLimits.maxNesting`) so hostile input cannot exhaust the stack.
public struct SceneJSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var path: [String] = []

    /// Parses `bytes` as one JSON document.
    public static func parse(_ bytes: [UInt8]) throws(SceneJSONSyntaxError) -> SceneJSON {
        var reader = SceneJSONReader(bytes: bytes)
        // A UTF-8 byte-order mark is tolerated, as many editors write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> SceneJSONSyntaxError {
        SceneJSONSyntaxError(line: line, path: SceneFilePath.render(path), message: message)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A: line += 1; index += 1
            case 0x20, 0x09, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(SceneJSONSyntaxError) -> SceneJSON {
        guard depth < SceneFileLimits.maxNesting else {
            throw error("nested deeper than \(SceneFileLimits.maxNesting) levels")
        }
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file") }
        let start = line
        switch bytes[index] {
        case UInt8(ascii: "{"): return SceneJSON(kind: .object(try object(depth: depth)), line: start)
        case UInt8(ascii: "["): return SceneJSON(kind: .array(try array(depth: depth)), line: start)
        case UInt8(ascii: "\""): return SceneJSON(kind: .string(try string()), line: start)
        case UInt8(ascii: "t"): try literal("true"); return SceneJSON(kind: .bool(true), line: start)
        case UInt8(ascii: "f"): try literal("false"); return SceneJSON(kind: .bool(false), line: start)
        case UInt8(ascii: "n"): try literal("null"); return SceneJSON(kind: .null, line: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return SceneJSON(kind: .number(try number()), line: start)
        default:
            throw error("unexpected character '\(Self.printable(bytes[index]))'")
        }
    }

    private mutating func literal(_ word: String) throws(SceneJSONSyntaxError) {
        let utf8 = Array(word.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw error("unexpected word (expected \(word))")
        }
        index += utf8.count
    }

    private mutating func object(depth: Int) throws(SceneJSONSyntaxError) -> [SceneJSON.Member] {
        index += 1
        var members: [SceneJSON.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return members }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a field name in double quotes") }
            let keyLine = line
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after field name \"\(key)\"") }
            index += 1
            path.append(SceneFilePath.field(key))
            let member = SceneJSON.Member(key: key, line: keyLine, value: try value(depth: depth + 1))
            path.removeLast()
            members.append(member)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return members }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func array(depth: Int) throws(SceneJSONSyntaxError) -> [SceneJSON] {
        index += 1
        var elements: [SceneJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return elements }
        while true {
            path.append(SceneFilePath.element(elements.count))
            elements.append(try value(depth: depth + 1))
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return elements }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func number() throws(SceneJSONSyntaxError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw error("a number must not start with 0") }
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("a number needs digits after '.'") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("a number needs digits in its exponent") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        // The grammar above admits only what Double's parser reads.
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw error("unreadable number")
        }
        return value
    }

    private mutating func string() throws(SceneJSONSyntaxError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unexpected end of file in a string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of file in a string") }
                try escape(into: &utf8)
            case 0..<0x20:
                throw error("a control character in a string (line breaks must be written \\n)")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(SceneJSONSyntaxError) {
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a \\u escape of a high surrogate must be followed by a low one")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("a \\u escape of a high surrogate must be followed by a low one") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("a \\u escape names a lone surrogate") }
            utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw error("unknown escape '\\\(Self.printable(byte))' in a string")
        }
    }

    private mutating func hex4() throws(SceneJSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func printable(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "0x" + String(byte, radix: 16, uppercase: true)
    }
}
