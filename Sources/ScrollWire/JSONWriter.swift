/// A minimal JSON writer appending compact JSON to a byte buffer. It is on the server's hot
/// path (one frame per room per tick), so it writes straight into a reserved `[UInt8]` with no
/// intermediate strings except for non-integral doubles.
///
/// Output is deterministic: keys come out in the order they are written, numbers have one
/// spelling (see `number(_:)`), strings one escaping. Commas are placed by a single flag: every
/// value, `{` and `[` is preceded by a comma when something precedes it at the same level.
package struct JSONWriter {
    package private(set) var bytes: [UInt8]
    private var needsComma = false

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendStatic(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":`. Names are static ASCII identifiers, so they need no escaping.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendStatic(name)
        appendStatic("\":")
        needsComma = false
    }

    package mutating func null() {
        separate()
        appendStatic("null")
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        if value { appendStatic("true") } else { appendStatic("false") }
        needsComma = true
    }

    package mutating func integer(_ value: Int) {
        separate()
        appendInteger(magnitude: value.magnitude, negative: value < 0)
        needsComma = true
    }

    package mutating func integer(_ value: UInt64) {
        separate()
        appendInteger(magnitude: UInt(value), negative: false)
        needsComma = true
    }

    /// Writes a double with one deterministic spelling:
    /// - integral values of magnitude below 2^53 as plain integers ("64", not "64.0");
    ///   -0 as "0";
    /// - other finite values as Swift's shortest round-trip `description` ("96.5", "1e-07",
    ///   "1e+300"), which is valid JSON and parses back to the same double, without a trailing
    ///   ".0" (so 2^53 is "9007199254740992");
    /// - non-finite values, which JSON cannot express, never reach the output: NaN is written
    ///   as 0 and ±infinity as ±1.7976931348623157e+308 (the largest finite double). The engine
    ///   never produces them; this only keeps a bug from breaking every viewer's JSON parser.
    package mutating func number(_ value: Double) {
        separate()
        let finite: Double
        if value.isNaN {
            finite = 0
        } else if value.isInfinite {
            finite = value < 0 ? -Double.greatestFiniteMagnitude : Double.greatestFiniteMagnitude
        } else {
            finite = value
        }
        if finite.magnitude < 9_007_199_254_740_992, finite == finite.rounded(.towardZero) {
            let integral = Int64(finite)
            appendInteger(magnitude: UInt(integral.magnitude), negative: integral < 0)
        } else {
            var text = finite.description
            text.withUTF8 { utf8 in
                // Integral doubles of 2^53 and above print as "9007199254740992.0" up to 1e16;
                // drop the ".0" so every integral value is spelled as an integer.
                let integral = utf8.count > 2 && utf8[utf8.count - 2] == UInt8(ascii: ".") && utf8[utf8.count - 1] == UInt8(ascii: "0")
                bytes.append(contentsOf: integral ? UnsafeBufferPointer(rebasing: utf8.dropLast(2)) : utf8)
            }
        }
        needsComma = true
    }

    /// Writes a finite double so that it parses back to the very same bits: as `number(_:)`
    /// does, except that -0 is written "-0" rather than "0". For recordings, whose inputs must
    /// be the doubles the room applied (a frame may depend on the sign of a zero).
    package mutating func exactNumber(_ value: Double) {
        if value == 0, value.sign == .minus {
            separate()
            appendStatic("-0")
            needsComma = true
        } else {
            number(value)
        }
    }

    /// Writes a double rounded to `precision` (see `WirePrecision`): the decimal n / 10^d with
    /// trailing zeros dropped, so integral results stay integers and -0 is "0". The digits come
    /// straight from the integer n, without formatting a string; they are the shortest
    /// round-trip spelling of `precision.rounded(value)`, i.e. what `number(_:)` would write for
    /// it. Values the precision does not round (non-finite, huge) go through `number(_:)`.
    package mutating func number(_ value: Double, _ precision: WirePrecision) {
        guard let units = precision.units(value) else {
            number(value)
            return
        }
        separate()
        let (integral, fraction, fractionDigits) = precision.split(units.magnitude)
        appendInteger(magnitude: UInt(integral), negative: units < 0)
        if fractionDigits > 0 {
            bytes.append(UInt8(ascii: "."))
            appendZeroPadded(fraction, digits: fractionDigits)
        }
        needsComma = true
    }

    /// `value` (< 10^digits) as exactly `digits` decimal digits, with leading zeros.
    private mutating func appendZeroPadded(_ value: UInt64, digits: Int) {
        var divisor: UInt64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private mutating func appendInteger(magnitude: UInt, negative: Bool) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(magnitude))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 ASCII digits
        var count = 0
        var rest = magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// Writes a JSON string: `"` and `\` escaped, control characters as \n \r \t \b \f or
    /// \u00XX, everything else (including non-ASCII) passed through as UTF-8.
    package mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var copy = value
        copy.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let b = utf8[i]
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                switch b {
                case 0x22: appendStatic("\\\"")
                case 0x5C: appendStatic("\\\\")
                case 0x0A: appendStatic("\\n")
                case 0x0D: appendStatic("\\r")
                case 0x09: appendStatic("\\t")
                case 0x08: appendStatic("\\b")
                case 0x0C: appendStatic("\\f")
                default:
                    appendStatic("\\u00")
                    bytes.append(Self.hexDigit(b >> 4))
                    bytes.append(Self.hexDigit(b & 0x0F))
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes a string or `null`.
    package mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Writes `value` as an object whose members `writeMembers` writes, or `null` when there is none.
    package mutating func optionalObject<Value>(_ value: Value?, _ writeMembers: (Value, inout JSONWriter) -> Void) {
        guard let value else { null(); return }
        beginObject()
        writeMembers(value, &self)
        endObject()
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
