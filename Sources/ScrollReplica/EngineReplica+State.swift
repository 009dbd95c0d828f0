import ScrollEngine
import ScrollWire

extension EngineReplica {
    /// The scene's state as bytes (`ScrollScene.stateBytes(base:)`, against the scene this
    /// replica was created with, `base`): what an inputs-stream snapshot carries.
    public func stateBytes() -> [UInt8] {
        scene.stateBytes(base: base)
    }

    /// Puts the scene exactly where `bytes` (`stateBytes()` of a replica or room of the same
    /// scene) say, mid-motion included. Throws, changing nothing, for bytes the engine
    /// refuses (`StateDecodingError`). The texts tables and the named input are kept.
    public mutating func restore(state bytes: [UInt8]) throws(StateDecodingError) {
        scene = try ScrollScene(restoring: bytes, base: base)
    }
}

extension EngineReplica {
    /// `FrameHash.of` the frame at room time `time`, naming the last input applied: what a beat
    /// at `time` carries when this replica's state is the room's.
    public func frameHash(at time: Double) -> UInt64 {
        FrameHash.of(scene.frame(at: time), input: lastApplied)
    }
}
