/// The emulator's counters and its own timing error, as `GET /stats` answers them and the
/// load report shows them. Directions: `up` is client → server, `down` server → client.
public struct LinkStats: Sendable {
    public var profile: LinkProfile
    public var seed: UInt64
    /// Client connections accepted, open now, cut on demand, and refused because the upstream
    /// could not be reached.
    public var accepted = 0
    public var open = 0
    public var cut = 0
    public var upstreamFailures = 0
    /// Per direction (index 0 up, 1 down): bytes forwarded, chunks read, chunks that stalled.
    public var bytes: [UInt64] = [0, 0]
    public var chunks: [UInt64] = [0, 0]
    public var stalls: [UInt64] = [0, 0]
    /// Actual release minus scheduled release of every delayed chunk, microseconds.
    public var timingError = TimingHistogram()
    /// How long each turn of the event loop took (wake-up to sleep), microseconds: when the
    /// timing error is large and these are short, the thread waited for a CPU, not for its work.
    public var loopTurns = TimingHistogram()
    /// CPU time of the emulator's thread so far, and seconds since it started.
    public var cpuSeconds = 0.0
    public var uptimeSeconds = 0.0
    /// Whether the emulator's thread runs at a raised priority (nice −10), as `scrollcast-load` asks.
    public var raisedPriority = false

    public init(profile: LinkProfile, seed: UInt64) {
        self.profile = profile
        self.seed = seed
    }

    /// Share of one core the emulator's thread used.
    public var cpuShare: Double { uptimeSeconds > 0 ? cpuSeconds / uptimeSeconds : 0 }

    /// The JSON object `GET /stats` answers (keys documented in docs/links.md).
    public func json() -> String {
        func pair(_ values: [UInt64]) -> String { "{\"up\": \(values[0]), \"down\": \(values[1])}" }
        let rate = profile.rateMbit.map { LinkProfile.format($0) } ?? "null"
        return """
            {"profile": "\(profile.name)", "delayMs": \(LinkProfile.format(profile.delayMs)), \
            "jitterMs": \(LinkProfile.format(profile.jitterMs)), \
            "stallProbability": \(LinkProfile.format(profile.stallProbability)), \
            "stallMs": \(LinkProfile.format(profile.stallMs)), "rateMbit": \(rate), "seed": \(seed), \
            "connections": {"accepted": \(accepted), "open": \(open), "cut": \(cut), "upstreamFailures": \(upstreamFailures)}, \
            "bytes": \(pair(bytes)), "chunks": \(pair(chunks)), "stalls": \(pair(stalls)), \
            "timingErrorUs": {"count": \(timingError.count), "p50": \(timingError.percentile(0.5)), \
            "p99": \(timingError.percentile(0.99)), "max": \(timingError.maxMicroseconds)}, \
            "loopTurnUs": {"count": \(loopTurns.count), "p99": \(loopTurns.percentile(0.99)), "max": \(loopTurns.maxMicroseconds)}, \
            "cpuSeconds": \(LinkProfile.format(cpuSeconds)), "uptimeSeconds": \(LinkProfile.format(uptimeSeconds)), "raisedPriority": \(raisedPriority)}
            """
    }

    /// One line for reports: "timing error p50 12 µs, p99 180 µs, max 2.1 ms; CPU 3.2 % of a core".
    public var timingSummary: String {
        "timing error p50 \(timingError.percentile(0.5)) µs / p99 \(timingError.percentile(0.99)) µs / max \(timingError.maxMicroseconds) µs over \(timingError.count) chunks; CPU \(LinkProfile.format((cpuShare * 1000).rounded() / 10)) % of a core"
    }
}
