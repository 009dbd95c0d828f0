import Histogram

/// Percentiles of a duration, in milliseconds, as the JSON report gives them.
struct LatencySummary: Codable, Sendable, Equatable {
    var count: UInt64
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var max: Double
}

/// Durations recorded in microseconds into an HDR histogram (3 significant digits, up to one
/// minute), so percentiles stay exact enough without keeping every sample.
struct LatencyHistogram {
    private static let highestMicroseconds: UInt64 = 60_000_000
    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: highestMicroseconds, numberOfSignificantValueDigits: .three)

    var count: UInt64 { histogram.totalCount }

    /// Records one duration; negative ones (clock skew) count as zero, longer than a minute as a minute.
    mutating func record(milliseconds: Double) {
        let micros = (milliseconds * 1000).rounded()
        let clamped = micros.isFinite ? Swift.min(Swift.max(micros, 0), Double(Self.highestMicroseconds)) : 0
        _ = histogram.record(UInt64(clamped))
    }

    mutating func reset() { histogram.reset() }

    /// Adds every duration `other` recorded (same bucket layout, so nothing is lost).
    mutating func merge(_ other: LatencyHistogram) { histogram.add(other.histogram) }

    /// The value at `percentile` (0–100) in milliseconds.
    func milliseconds(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    /// Percentiles, or nil when nothing was recorded (nothing to report, not zero).
    func summary() -> LatencySummary? {
        guard count > 0 else { return nil }
        return LatencySummary(
            count: count,
            p50: milliseconds(atPercentile: 50),
            p90: milliseconds(atPercentile: 90),
            p99: milliseconds(atPercentile: 99),
            p999: milliseconds(atPercentile: 99.9),
            max: Double(histogram.maxRecorded) / 1000)
    }
}
