/// A small deterministic random source (SplitMix64): the same seed gives the same numbers on
/// every run and platform, so `scrollcast-load --seed` reproduces every gesture and the tests'
/// random scripts and fuzz inputs are replayable. The standard library's generator is seeded by
/// the system and cannot be replayed. Not for secrets.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
