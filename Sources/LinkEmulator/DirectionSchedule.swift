import ScrollEngine

/// When each chunk read in one direction of one connection may be written on: the link's model
/// (docs/links.md), pure and deterministic for a given seed.
///
/// A chunk of `bytes` read at `now` first waits for the link to be free and takes
/// bytes × 8 / rate to serialise (with a cap), then travels delay + uniform(0 … jitter); with
/// the stall probability it is held another `stallMs`. It is never released before the chunk
/// ahead of it, so order is kept and a stall holds the whole direction, as a retransmission
/// does in TCP.
public struct DirectionSchedule: Sendable {
    public let profile: LinkProfile
    private var random: SeededRandom
    private let delayNs: UInt64
    private let jitterNs: Double
    private let stallNs: UInt64
    /// Nanoseconds per byte on the wire; 0 without a cap.
    private let nsPerByte: Double
    private var linkFreeAt: UInt64 = 0
    private var lastRelease: UInt64 = 0

    /// The schedule of direction `direction` (0 up, 1 down) of connection `connection`: each has
    /// its own stream of numbers from `seed`, so one connection's traffic never shifts another's.
    public init(profile: LinkProfile, seed: UInt64, connection: UInt64, direction: UInt64) {
        self.profile = profile
        var mixer = SeededRandom(seed: seed ^ (connection &* 0x9E37_79B9_7F4A_7C15) ^ (direction &* 0xD1B5_4A32_D192_ED03))
        random = SeededRandom(seed: mixer.next())
        delayNs = UInt64(profile.delayMs * 1_000_000)
        jitterNs = profile.jitterMs * 1_000_000
        stallNs = UInt64(profile.stallMs * 1_000_000)
        nsPerByte = profile.rateMbit.map { 8_000 / $0 } ?? 0
    }

    /// The release time (monotonic nanoseconds) of a chunk of `bytes` read at `now`, and
    /// whether it stalled.
    public mutating func release(bytes: Int, now: UInt64) -> (at: UInt64, stalled: Bool) {
        // Both draws happen for every chunk, so one profile's stalls do not shift another's jitter.
        let jitterDraw = unit()
        let stallDraw = unit()
        var sent = now
        if nsPerByte > 0 {
            sent = max(now, linkFreeAt) + UInt64(Double(bytes) * nsPerByte)
            linkFreeAt = sent
        }
        var at = sent + delayNs + UInt64(jitterDraw * jitterNs)
        let stalled = stallDraw < profile.stallProbability
        if stalled { at += stallNs }
        at = max(at, lastRelease)
        lastRelease = at
        return (at, stalled)
    }

    /// Uniform in [0, 1).
    private mutating func unit() -> Double {
        Double(random.next() >> 11) * 0x1.0p-53
    }
}
