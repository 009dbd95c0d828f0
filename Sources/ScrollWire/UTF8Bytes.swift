/// Runs `body` on a text's UTF-8 bytes, in place.
///
/// In the page's WebAssembly build (Embedded Swift) not `String.withUTF8`: that makes the string
/// contiguous first, code for foreign (bridged) strings that Embedded Swift never has, and it
/// costs the module kilobytes (docs/wasm.md, "Size"). Natively it is `withUTF8` as before.
func withUTF8Bytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    #if hasFeature(Embedded)
    return text.utf8.withContiguousStorageIfAvailable(body)!  // every Embedded Swift string is contiguous UTF-8
    #else
    var text = text
    return text.withUTF8(body)
    #endif
}
