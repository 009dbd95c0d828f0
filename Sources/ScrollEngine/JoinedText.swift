/// The texts joined, built from their UTF-8 bytes.
///
/// Why not `+` or interpolation: in the page's WebAssembly build (Embedded Swift, docs/wasm.md
/// "Size") `String.append` brings the standard library's code for foreign (bridged) strings,
/// kilobytes of the module, for the engine's few composed texts (the demo's row details and
/// dates, the seed table's titles, two rejection messages). The result is the same string.
func joinedText(_ parts: String...) -> String {
    var bytes: [UInt8] = []
    for part in parts {
        #if hasFeature(Embedded)
        // Every Embedded Swift string is contiguous UTF-8; reading it in place keeps out the
        // code for other (foreign) strings.
        _ = part.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        #else
        bytes.append(contentsOf: part.utf8)
        #endif
    }
    return String(validating: bytes, as: UTF8.self)!  // joined UTF-8 is UTF-8: nothing to repair
}

/// `value` in decimal, as `String(value)` writes it.
///
/// Why not `String(value)`: the scenes' texts are the only integers the WebAssembly engine prints,
/// and the standard library's printing (any radix, any integer type) is far larger (docs/wasm.md,
/// "Size").
func decimalText(_ value: Int) -> String {
    var count = value < 0 ? 2 : 1
    var rest = value.magnitude
    while rest >= 10 { rest /= 10; count += 1 }
    var digits = [UInt8](repeating: UInt8(ascii: "-"), count: count)
    rest = value.magnitude
    repeat {
        count -= 1
        digits[count] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
    } while rest > 0
    return String(validating: digits, as: UTF8.self)!  // ASCII: nothing to repair
}
