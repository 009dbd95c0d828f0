import ScrollEngine

/// The emulator's seeded random source: the engine's SplitMix64 (`SeededRandom`), so the same
/// seed gives the same delays and a failing run can be replayed. Not for anything secret.
public struct LinkRandom: Sendable {
    private var source: SeededRandom

    public init(seed: UInt64) { source = SeededRandom(seed: seed) }

    /// The generator for one direction of one connection: independent streams from one seed.
    public init(seed: UInt64, connection: UInt64, direction: UInt64) {
        var mixer = SeededRandom(seed: seed ^ (connection &* 0x9E37_79B9_7F4A_7C15) ^ (direction &* 0xD1B5_4A32_D192_ED03))
        source = SeededRandom(seed: mixer.next())
    }

    public mutating func next() -> UInt64 { source.next() }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
