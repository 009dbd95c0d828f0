import ScrollWire

/// Feeds arbitrary bytes to every protocol decoder: client JSON, server JSON (version 1) and
/// server binary (version 2). Any outcome but a value or a `WireError` (a trap, an overflow, an
/// out-of-bounds read caught by ASan) is a bug.
func decodeEverything(_ bytes: UnsafeBufferPointer<UInt8>) {
    _ = try? ClientMessageDecoder.decode(bytes)
    _ = try? ServerMessageDecoder.decode(bytes)
    _ = ServerMessageDecoder.frameHeader(bytes)
    var fresh = ServerMessageDecoderV2()
    _ = try? fresh.decode(bytes)
    // A frame is only decoded to the end by a decoder that has its texts: this one knows rows
    // 0…63, sections 0…7 and panel labels 0…7, as the corpus's version-2 frames need.
    var primed = primedDecoderV2
    _ = try? primed.decode(bytes)
    _ = ServerMessageDecoderV2.frameHeader(bytes)
}

/// A version-2 decoder that has received texts for rows 0…63 (44 pt, "Row N"), sections 0…7
/// ("Section N") and panel labels 0…7 ("Day N", "0N:00"). `FuzzCorpusReplayTests` primes its
/// decoder the same way.
let primedDecoderV2: ServerMessageDecoderV2 = {
    let texts = WireTexts(
        rows: (0..<64).map { RowTexts(id: $0, height: 44, title: "Row \($0)", subtitle: "", detail: "") },
        sections: (0..<8).map { SectionTitle(section: $0, title: "Section \($0)") },
        labels: (0..<8).map { PanelLabel(label: $0, title: "Day \($0)", detail: "0\($0):00") })
    var decoder = ServerMessageDecoderV2()
    _ = try? decoder.decode(ServerMessageEncoderV2.texts(texts))
    return decoder
}()

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
