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
        var members = JSONObject()
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
            guard members.insert(value, named: key) else {
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
        // Most strings (every field name) have no escape: made straight from the input's bytes.
        var end = index
        while end < bytes.count {
            let b = bytes[end]
            if b == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                index = end + 1
                return text
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            end += 1
        }
        var out = Array(bytes[index..<end])
        index = end
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
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = current, isDigit(first) else { throw syntaxError("invalid number") }
        // The digits as an integer while it stays exact (below 2^53), for the fast path below.
        var digits = DecimalDigits()
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw syntaxError("invalid number (leading zero)") }
        } else {
            digits.take(&self, fraction: false)
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let d = current, isDigit(d) else { throw syntaxError("invalid number") }
            digits.take(&self, fraction: true)
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let d = current, isDigit(d) else { throw syntaxError("invalid number") }
            skipDigits()
            digits.exact = false
        }
        if let value = digits.value { return negative ? -value : value }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // The grammar above is a subset of what Double(_:) accepts, so nil cannot happen; the
        // guard keeps the parser total anyway. Overflow ("1e999") parses as ±infinity: refused.
        guard let value = Double(text), value.isFinite else {
            throw WireError("number \(text.prefix(32)) is too large (numbers must be finite)")
        }
        return value
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// A number's digits read as an integer `significand` and a power of ten, for the usual
    /// numbers of the protocol (coordinates and times: a few digits, no exponent). When the
    /// significand is below 2^53 and the power within ±22, both are exact doubles and one IEEE
    /// multiplication or division rounds the quotient correctly, so the result is the very double
    /// `Double(text)` parses (Clinger's fast path). Anything else goes the long way.
    private struct DecimalDigits {
        var significand: UInt64 = 0
        var power = 0
        var exact = true

        static let limit: UInt64 = 1 << 53
        static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                            1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

        /// Consumes a run of digits (of the fraction when `fraction`).
        mutating func take(_ parser: inout JSONParser, fraction: Bool) {
            while let b = parser.current, parser.isDigit(b) {
                parser.index += 1
                guard exact else { continue }
                significand = significand &* 10 &+ UInt64(b &- UInt8(ascii: "0"))
                if significand >= Self.limit { exact = false }
                if fraction { power -= 1 }
            }
        }

        var value: Double? {
            guard exact, power >= -22 else { return nil }
            let x = Double(significand)
            return power < 0 ? x / Self.powersOfTen[-power] : x
        }
    }

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
