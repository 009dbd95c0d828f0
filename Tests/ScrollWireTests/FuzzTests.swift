import Testing
import ScrollEngine
@testable import ScrollWire

@Suite("Decoders are total")
struct FuzzTests {
    static var seeds: [[UInt8]] {
        var seeds = Fixtures.inputs.map { Array(ClientMessageEncoder.input(InputMessage(id: 7, clientTime: 12.5, kind: $0)).utf8) }
        seeds.append(Array(ClientMessageEncoder.join(JoinRequest(room: "demo", client: "c", driverKey: "k", lock: true)).utf8))
        seeds.append(ServerMessageEncoder.frame(Fixtures.busyFrame, input: Fixtures.docInput, sentAt: 3))
        seeds.append(ServerMessageEncoder.snapshot(Fixtures.snapshot()))
        seeds.append(ServerMessageEncoder.rowMoved(rowID: 1, from: IndexPathFixture.a, to: IndexPathFixture.b, by: "v1", rowMoveVersion: 2))
        seeds += FixturesV2.fuzzSeeds()
        return seeds
    }

    /// Feeds `bytes` to every decoder. Each must return or throw a WireError; a trap would
    /// crash the test process, which is the failure this guards against.
    private func feed(_ bytes: [UInt8]) -> Int {
        var accepted = 0
        do { _ = try ClientMessageDecoder.decode(bytes); accepted += 1 } catch { #expect(!error.message.isEmpty) }
        do { _ = try ServerMessageDecoder.decode(bytes); accepted += 1 } catch { #expect(!error.message.isEmpty) }
        _ = ServerMessageDecoder.frameHeader(bytes)
        var fresh = ServerMessageDecoderV2()
        do { _ = try fresh.decode(bytes); accepted += 1 } catch { #expect(!error.message.isEmpty) }
        var primed = FixturesV2.primedDecoder
        do { _ = try primed.decode(bytes); accepted += 1 } catch { #expect(!error.message.isEmpty) }
        _ = ServerMessageDecoderV2.frameHeader(bytes)
        return accepted
    }

    @Test("random byte strings and JSON-ish token soups")
    func randomBytes() {
        var rng = SeededRandom(seed: 0x5C_0011)
        let tokens = ["{", "}", "[", "]", ":", ",", "\"", "\\", "\\u", "d83d", "\\ude00", "-", "0", "1e999", "1.5", "e", "true",
                      "null", "\"type\"", "\"input\"", "\"kind\"", "\"id\"", " ", "\u{0}", "é", "\u{FF}"]
        for i in 0..<300 {
            var bytes: [UInt8] = []
            if i % 2 == 0 {
                for _ in 0..<Int.random(in: 0...64, using: &rng) { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
            } else {
                for _ in 0..<Int.random(in: 0...40, using: &rng) { bytes += Array(tokens.randomElement(using: &rng)!.utf8) }
            }
            _ = feed(bytes)
        }
    }

    @Test("valid messages mutated: bytes flipped, inserted, deleted, truncated")
    func mutatedMessages() {
        var rng = SeededRandom(seed: 42)
        let seeds = Self.seeds
        var accepted = 0
        for i in 0..<600 {
            var bytes = seeds[i % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.insert(UInt8.random(in: 0...127, using: &rng), at: at)
                case 2: bytes.remove(at: at)
                default: bytes.removeSubrange(at...)
                }
            }
            accepted += feed(bytes)
        }
        // Some mutations (e.g. a digit changed) leave valid messages: the fuzzing reaches the
        // field validation, not just the syntax checks.
        #expect(accepted > 0)
    }

    @Test("deep nesting is refused, not a stack overflow")
    func deepNesting() {
        let deep = Array(repeating: UInt8(ascii: "["), count: ScrollWire.maxMessageBytes)
        #expect(throws: WireError.self) { try ClientMessageDecoder.decode(deep) }
        let deepObjects = Array(String(repeating: #"{"a":"#, count: 3000).utf8)
        #expect(throws: WireError.self) { try ClientMessageDecoder.decode(deepObjects) }
        #expect(throws: WireError.self) { try ServerMessageDecoder.decode(deepObjects) }
    }
}

enum IndexPathFixture {
    static let a = IndexPath(section: 0, row: 1)
    static let b = IndexPath(section: 0, row: 2)
}
