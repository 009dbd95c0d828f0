import ScrollEngine

/// Runs a `CrossCheckScript` on an `EngineReplica` the way the WebAssembly harness drives the
/// engine through its exports (Tests/e2e/test_wasm_crosscheck.py), recording three numbers per
/// step: for an input its result code and, for a row move, the moved row and its destination;
/// for a frame the FNV-1a hash and length of its v2 bytes and the hash of its `texts` message
/// (0 when none). Both sides must produce the same list.
public enum CrossCheckRun {
    /// `sentAt` of every frame; fixed so that frames compare byte for byte.
    public static let sentAt = 1_764_000_000_123.45

    /// The expected numbers of `script`, and the v2 bytes of the frame at step `keep` (if it is one).
    /// With `roundTripAt`, after that step the replica's scene is replaced by the one its state
    /// bytes restore (which must change nothing that follows); `state` holds those bytes.
    /// `hashes` are the `FrameHash` of each frame step, in order.
    public static func run(_ script: CrossCheckScript, keep: Int? = nil, roundTripAt: Int? = nil)
        -> (expect: [Double], bytes: [UInt8]?, state: [UInt8]?, hashes: [UInt64]) {
        guard var replica = script.scene.map({ EngineReplica(sceneNamed: script.sceneName, configuration: $0) })
                ?? EngineReplica(sceneNamed: script.sceneName) else { return ([], nil, nil, []) }
        if let restore = script.restore {
            let order = CrossCheckScript.swapped(replica.scene.configuration.rowOrder, restore.swaps)
            _ = replica.restore(order: order, viewport: restore.viewport, restingAt: restore.offset)
        }
        var expect: [Double] = []
        var kept: [UInt8]?
        var state: [UInt8]?
        var hashes: [UInt64] = []
        var sequence: UInt64 = 0
        for (index, step) in script.steps.enumerated() {
            switch step {
            case .apply(let code, let id, let time, let viewer):
                guard let kind = code.kindValue else {
                    expect += [Double(ReplicaResult.unknownInput), 0, 0]
                    continue
                }
                let outcome = replica.apply(InputEvent(id: id, time: time, kind: kind), viewer: CrossCheckScript.viewers[viewer])
                if case .rowMoved(let rowID, _, let to) = outcome {
                    expect += [Double(ReplicaResult.rowMoved), Double(rowID), Double(to.section * 100_000 + to.row)]
                } else {
                    expect += [Double(ReplicaResult.code(outcome)), 0, 0]
                }
            case .frame(let time):
                sequence += 1
                hashes.append(replica.frameHash(at: time))
                let frame = replica.frame(at: time, sequence: sequence, sentAt: sentAt)
                expect += [Double(fnv1a32(frame.bytes)), Double(frame.bytes.count), Double(frame.texts.map(fnv1a32) ?? 0)]
                if index == keep { kept = frame.bytes }
            }
            if index == roundTripAt {
                let bytes = replica.stateBytes()
                state = bytes
                do { try replica.restore(state: bytes) } catch { return (expect, kept, bytes, hashes) }
            }
        }
        return (expect, kept, state, hashes)
    }
}
