import Foundation
import Testing
@testable import ScrollWire

/// Replays the fuzzer's seed corpus and every input it ever crashed on (`Fuzz/regressions/`)
/// through the decoders on an ordinary build, so a fixed crash stays fixed.
@Suite struct FuzzCorpusReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func files(in folder: String) throws -> [URL] {
        let dir = fuzzDirectory.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.path < $1.path }
    }

    @Test func seedCorpusIsRealMessagesThatDecode() throws {
        let seeds = try Self.files(in: "corpus")
        #expect(seeds.count >= 20)
        for url in seeds {
            let bytes = Array(try Data(contentsOf: url))
            let asClient = try? ClientMessageDecoder.decode(bytes)
            let asServer = try? ServerMessageDecoder.decode(bytes)
            #expect(asClient != nil || asServer != nil, "seed \(url.lastPathComponent) should be a valid message")
        }
    }

    @Test func regressionsDecodeOrFailCleanly() throws {
        for url in try Self.files(in: "regressions") {
            let bytes = Array(try Data(contentsOf: url))
            do { _ = try ClientMessageDecoder.decode(bytes) } catch { #expect(!error.message.isEmpty) }
            do { _ = try ServerMessageDecoder.decode(bytes) } catch { #expect(!error.message.isEmpty) }
        }
    }
}
