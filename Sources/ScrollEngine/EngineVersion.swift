/// The engine's physics version: two builds with the same version compute the same frames, bit
/// for bit, from the same state and inputs (docs/protocol.md, "The inputs stream").
///
/// The rule: bump `current` in the same commit as any change that can alter a frame or a state
/// for the same inputs (a constant, a curve, an effect, input handling, rounding, the state
/// bytes' layout), since a replica of another version would replay the room's inputs
/// differently. Refactors that the native/Wasm cross-check shows bit-identical need no bump.
public enum EngineVersion {
    /// This build's version.
    public static let current: UInt32 = 1
}
