import ScrollWire

/// Feeds arbitrary bytes to both protocol decoders. Any outcome but a value or a `WireError`
/// (a trap, an overflow, an out-of-bounds read caught by ASan) is a bug.
func decodeEverything(_ bytes: UnsafeBufferPointer<UInt8>) {
    _ = try? ClientMessageDecoder.decode(bytes)
    _ = try? ServerMessageDecoder.decode(bytes)
    _ = ServerMessageDecoder.frameHeader(bytes)
}

#if FUZZING
/// libFuzzer's per-input callback; built only by `make fuzz`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    decodeEverything(UnsafeBufferPointer(start: data, count: size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links executables with `main` renamed to `<module>_main`, which would hide
/// libFuzzer's own `main`; so this is that entry point, and it hands over to libFuzzer's driver.
@_cdecl("scrollwire_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}
#else
import Foundation

/// Without the fuzzer this replays corpus files through the decoders, so a crash that libFuzzer
/// once found can be re-run on an ordinary build: `scrollwire-fuzz FILE...`.
@main
struct ReplayCorpus {
    static func main() throws {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: scrollwire-fuzz FILE... (replays inputs through the protocol decoders)")
            return
        }
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { decodeEverything($0.bindMemory(to: UInt8.self)) }
        }
        print("replayed \(paths.count) inputs without a crash")
    }
}
#endif
