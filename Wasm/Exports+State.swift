// The engine's state bytes and the beat's frame hash across the boundary (docs/wasm.md).
import ScrollEngine
import ScrollReplica

/// Puts the scene where the `length` state bytes in the input buffer say (an inputs-stream
/// snapshot's `state`), mid-motion included. 0, -11 without a scene, or -12 for bytes the engine
/// refuses (another format or engine version, truncated, garbled), the scene unchanged.
@_expose(wasm, "scrollcast_restore_state") @_cdecl("scrollcast_restore_state")
public func scrollcastRestoreState(_ length: Int32) -> Int32 {
    guard length >= 0, Int(length) <= inputBuffer.capacity else { return ReplicaResult.badArgument }
    let bytes = inputBuffer.bytes(Int(length))
    return withReplica { replica in
        do throws(StateDecodingError) {
            try replica.restore(state: bytes)
            return ReplicaResult.applied
        } catch {
            return ReplicaResult.badArgument
        }
    }
}

/// The engine version this module computes (`EngineVersion.current`): what a page names in its
/// inputs-stream `join`.
@_expose(wasm, "scrollcast_engine_version") @_cdecl("scrollcast_engine_version")
public func scrollcastEngineVersion() -> Int32 { Int32(bitPattern: EngineVersion.current) }

/// The beat hash (`FrameHash`) of the frame at room time `t`, as 8 little-endian bytes in the
/// output buffer; returns 8, or -11 without a scene.
@_expose(wasm, "scrollcast_frame_hash") @_cdecl("scrollcast_frame_hash")
public func scrollcastFrameHash(_ t: Double) -> Int32 {
    withReplica { replica in
        let hash = replica.frameHash(at: t)
        outputBuffer.put((0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * UInt64($0))) })
        return 8
    }
}
