/// The texts joined, built from their UTF-8 bytes.
///
/// Why not `+` or interpolation: in the page's WebAssembly build (Embedded Swift, docs/wasm.md
/// "Size") `String.append` brings the standard library's code for foreign (bridged) strings,
/// about 5 KB of the module, for the engine's few composed texts (the demo's row details and
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
