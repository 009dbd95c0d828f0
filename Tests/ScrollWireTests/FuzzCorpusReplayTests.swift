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
            var v2 = FixturesV2.primedDecoder
            let asV2 = try? v2.decode(bytes)
            #expect(asClient != nil || asServer != nil || asV2 != nil, "seed \(url.lastPathComponent) should be a valid message")
        }
    }

    @Test("the corpus holds one version-2 seed of every message, as the encoder writes them today")
    func versionTwoSeeds() throws {
        let seeds = try Self.files(in: "corpus").filter { $0.lastPathComponent.hasPrefix("seed-v2-") }
        let expected = FixturesV2.fuzzSeeds()
        if ProcessInfo.processInfo.environment["SCROLLWIRE_WRITE_FUZZ_SEEDS"] != nil {
            for (i, seed) in expected.enumerated() {
                let name = String(format: "seed-v2-%02d.bin", i + 1)
                try Data(seed).write(to: Self.fuzzDirectory.appendingPathComponent("corpus").appendingPathComponent(name))
            }
            return
        }
        #expect(try seeds.map { Array(try Data(contentsOf: $0)) } == expected,
                "regenerate with SCROLLWIRE_WRITE_FUZZ_SEEDS=1 swift test --filter FuzzCorpusReplayTests")
        #expect(Set(expected.map { $0[0] }) == Set(ServerMessageTypeV2.allCases.map(\.rawValue)))
    }

    @Test func regressionsDecodeOrFailCleanly() throws {
        for url in try Self.files(in: "regressions") {
            let bytes = Array(try Data(contentsOf: url))
            do { _ = try ClientMessageDecoder.decode(bytes) } catch { #expect(!error.message.isEmpty) }
            do { _ = try ServerMessageDecoder.decode(bytes) } catch { #expect(!error.message.isEmpty) }
            var v2 = FixturesV2.primedDecoder
            do { _ = try v2.decode(bytes) } catch { #expect(!error.message.isEmpty) }
        }
    }
}
