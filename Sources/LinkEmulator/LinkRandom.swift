/// A small seeded generator (SplitMix64): the same seed gives the same delays, so a failing
/// run can be replayed. Not for anything secret.
public struct LinkRandom: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The generator for one direction of one connection: independent streams from one seed.
    public init(seed: UInt64, connection: UInt64, direction: UInt64) {
        var mixer = LinkRandom(seed: seed ^ (connection &* 0x9E37_79B9_7F4A_7C15) ^ (direction &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
