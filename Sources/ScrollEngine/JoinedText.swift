/// The texts joined, built from their UTF-8 bytes.
///
/// Why not `+` or interpolation: in the page's WebAssembly build (Embedded Swift, docs/wasm.md
/// "Size") `String.append` brings the standard library's code for foreign (bridged) strings,
/// about 5 KB of the module, for the engine's few composed texts (the demo's row details and
/// dates, the seed table's titles, two rejection messages). The result is the same string.
func joinedText(_ parts: String...) -> String {
    var bytes: [UInt8] = []
    for part in parts { bytes.append(contentsOf: part.utf8) }
    return String(decoding: bytes, as: UTF8.self)
}
