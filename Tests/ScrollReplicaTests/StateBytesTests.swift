import ScrollEngine
import ScrollReplica
import Testing

/// The engine's state as bytes (docs/protocol.md, "Engine state bytes"): a replica restored from
/// them at any point of a script continues bit-identically to one that never stopped, and bytes
/// that are not a state are refused with a reason, building nothing.
@Suite struct StateBytesTests {
    @Test("restored at a random step of 300 random scripts, the engine continues bit-identically")
    func roundTripContinuesExactly() throws {
        var mid = (fling: 0, drag: 0, lifted: 0, moved: 0)
        for seed in UInt64(0)..<300 {
            let script = CrossCheckScript(seed: seed)
            let whole = CrossCheckRun.run(script).expect
            // Two points per script: the seed's own and another, so restores land mid-gesture often.
            for step in [script.stateStep, (script.stateStep * 7 + 3) % max(1, script.steps.count)] {
                let run = CrossCheckRun.run(script, roundTripAt: step)
                #expect(run.expect == whole, "seed \(seed), restored after step \(step)")
                let state = try #require(run.state)
                // The restored scene writes the very same bytes.
                var replica = try #require(EngineReplica(sceneNamed: script.sceneName))
                try replica.restore(state: state)
                #expect(replica.stateBytes() == state)
                let description = replica.scene.frame(at: .nan)
                if description.phase == .decelerating { mid.fling += 1 }
                if description.phase == .tracking { mid.drag += 1 }
                if description.liftedRow != nil { mid.lifted += 1 }
                if replica.scene.configuration.rowOrder != ReplicaScenes.configuration(named: script.sceneName)?.rowOrder {
                    mid.moved += 1
                }
            }
        }
        // The restores really were taken mid-motion, with a row held and after row moves.
        #expect(mid.fling > 5 && mid.drag > 5 && mid.lifted > 0 && mid.moved > 0, "\(mid)")
    }

    @Test("every truncation and every single flipped byte is refused or restores a valid scene")
    func badBytesAreRefused() throws {
        let script = CrossCheckScript(seed: 7)
        let state = try #require(CrossCheckRun.run(script, roundTripAt: script.stateStep).state)
        var replica = try #require(EngineReplica(sceneNamed: script.sceneName))
        for length in 0..<state.count {
            #expect(throws: StateDecodingError.self) { try replica.restore(state: Array(state.prefix(length))) }
        }
        #expect(throws: StateDecodingError.trailingBytes(1)) { try replica.restore(state: state + [0]) }
        #expect(throws: StateDecodingError.notState) { try replica.restore(state: [0x7b] + state.dropFirst()) }
        var other = state
        other[4] = 9
        #expect(throws: StateDecodingError.formatVersion(9)) { try replica.restore(state: other) }
        other = state
        other[5] &+= 1
        #expect(throws: StateDecodingError.engineVersion(EngineVersion.current + 1)) { try replica.restore(state: other) }
        // A flipped byte anywhere either is refused or gives a scene that frames without trapping
        // (most bytes are doubles' bits, where any other value is still a number).
        var refused = 0
        for index in state.indices {
            var garbled = state
            garbled[index] ^= 0xa5
            var copy = replica
            do {
                try copy.restore(state: garbled)
                _ = copy.scene.frame(at: 1e6)
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        // At least the magic, the format and the engine version (9 bytes) are always refused.
        #expect(refused >= 9, "\(refused) of \(state.count) garbled states refused")
    }

    @Test("a NaN, a viewport the engine refuses, or a row order that loses a row is refused by field")
    func badValuesNameTheirField() throws {
        let base = try #require(ReplicaScenes.configuration(named: "seed-table"))
        let scene = ScrollScene(configuration: base)
        let state = scene.stateBytes(base: base)
        #expect(state.count == 107)  // docs/protocol.md, "Engine state bytes and the frame hash"
        var nanWidth = state
        for k in 0..<8 { nanWidth[9 + k] = UInt8(truncatingIfNeeded: Double.nan.bitPattern >> (8 * UInt64(k))) }
        #expect(throws: StateDecodingError.invalid(field: "viewport.width")) {
            _ = try ScrollScene(restoring: nanWidth, base: base)
        }
        var zero = state
        for k in 0..<8 { zero[9 + k] = 0 }
        #expect(throws: StateDecodingError.invalid(field: "viewport")) { _ = try ScrollScene(restoring: zero, base: base) }
        // Another table: the state's row order (base's) is that table's, so it must name its rows.
        var moved = base
        moved.sections[0].rows.swapAt(0, 1)
        let reordered = ScrollScene(configuration: moved).stateBytes(base: base)
        var shorter = base
        shorter.sections[0].rows.removeLast()
        #expect(throws: StateDecodingError.invalid(field: "rowOrder")) {
            _ = try ScrollScene(restoring: reordered, base: shorter)
        }
        #expect(try ScrollScene(restoring: reordered, base: base).configuration.rowOrder == moved.rowOrder)
    }
}
