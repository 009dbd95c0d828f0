/// A small strict JSON parser (RFC 8259) over bytes.
///
/// Why not Foundation's JSONSerialization: on Linux it hands numbers and booleans back as
/// NSNumber, where `true` and `1` are hard to tell apart, it silently accepts "1e999" as
/// infinity, and it is not total on every byte string we might be fed. This parser is ~200
/// lines, never traps (every read is bounds-checked), bounds its recursion, refuses duplicate
/// keys, lone surrogates and raw control characters, and reports the byte offset of an error.
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    /// Parses one complete JSON text. `bytes` must already be valid UTF-8.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = ScrollWire.maxNestingDepth) throws(WireError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.syntaxError("unexpected data after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func syntaxError(_ what: String) -> WireError {
        WireError("message is not valid JSON: \(what) at byte \(index)")
    }

    private mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString, value: JSONValue) throws(WireError) -> JSONValue {
        let start = index
        var ok = true
        literal.withUTF8Buffer { lit in
            for (offset, b) in lit.enumerated() {
                let i = start + offset
                if i >= bytes.count || bytes[i] != b { ok = false; return }
            }
        }
        guard ok else { throw syntaxError("unexpected character") }
        index = start + literal.utf8CodeUnitCount
        return value
    }

    private mutating func parseValue(depth: Int) throws(WireError) -> JSONValue {
        guard let b = current else { throw syntaxError("unexpected end") }
        switch b {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expect("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw syntaxError("unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws(WireError) -> JSONValue {
        guard depth <= maxDepth else { throw syntaxError("nested deeper than \(maxDepth) levels") }
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw syntaxError("expected a quoted field name") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw syntaxError("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            guard members.updateValue(value, forKey: key) == nil else {
                throw WireError("duplicate field '\(Self.printable(key))'")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw syntaxError("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(WireError) -> JSONValue {
        guard depth <= maxDepth else { throw syntaxError("nested deeper than \(maxDepth) levels") }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw syntaxError("expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws(WireError) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard let b = current else { throw syntaxError("unterminated string") }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                // Input was validated as UTF-8 and escapes produce valid scalars, so this never repairs.
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard let e = current else { throw syntaxError("unterminated string") }
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): out.append(contentsOf: try parseUnicodeEscape())
                default: index -= 1; throw syntaxError("invalid escape")
                }
            case 0x00..<0x20:
                throw syntaxError("control character in string")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    /// After `\u`: four hex digits, or a surrogate pair `\uD83D\uDE00`. Returns UTF-8 bytes.
    private mutating func parseUnicodeEscape() throws(WireError) -> [UInt8] {
        let high = try parseHex4()
        var scalarValue = high
        if (0xD800...0xDBFF).contains(high) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw syntaxError("lone surrogate in \\u escape")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw syntaxError("lone surrogate in \\u escape") }
            scalarValue = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(high) {
            throw syntaxError("lone surrogate in \\u escape")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw syntaxError("invalid \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func parseHex4() throws(WireError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = current else { throw syntaxError("unterminated \\u escape") }
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw syntaxError("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Strict JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    private mutating func parseNumber() throws(WireError) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw syntaxError("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw syntaxError("invalid number (leading zero)") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let d = current, isDigit(d) else { throw syntaxError("invalid number") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let d = current, isDigit(d) else { throw syntaxError("invalid number") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // The grammar above is a subset of what Double(_:) accepts, so nil cannot happen; the
        // guard keeps the parser total anyway. Overflow ("1e999") parses as ±infinity: refused.
        guard let value = Double(text), value.isFinite else {
            throw WireError("number \(text.prefix(32)) is too large (numbers must be finite)")
        }
        return value
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let b = current, isDigit(b) { index += 1 }
    }

    /// A string shortened and stripped of control characters, safe to quote in an error message.
    package static func printable(_ s: String, limit: Int = 40) -> String {
        var out = ""
        for scalar in s.unicodeScalars.prefix(limit) {
            out.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        return s.unicodeScalars.count > limit ? out + "…" : out
    }
}
