/// Microsecond samples in log-linear buckets (exact below 64 µs, within about 3 % above):
/// constant memory however many chunks pass, for the emulator's own timing error.
public struct TimingHistogram: Sendable {
    private var buckets = [UInt64](repeating: 0, count: 64 + 58 * 32)
    public private(set) var count: UInt64 = 0
    public private(set) var maxMicroseconds: UInt64 = 0

    public init() {}

    public mutating func record(microseconds value: UInt64) {
        buckets[Self.index(value)] += 1
        count += 1
        maxMicroseconds = max(maxMicroseconds, value)
    }

    public mutating func merge(_ other: TimingHistogram) {
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
        maxMicroseconds = max(maxMicroseconds, other.maxMicroseconds)
    }

    /// The value at `quantile` (0 … 1), in microseconds: the middle of its bucket, never above
    /// the largest sample; 0 when empty.
    public func percentile(_ quantile: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((Double(count) * quantile).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in buckets.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank { return min(Self.middle(of: index), maxMicroseconds) }
        }
        return maxMicroseconds
    }

    static func index(_ value: UInt64) -> Int {
        if value < 64 { return Int(value) }
        let shift = (63 - value.leadingZeroBitCount) - 5
        return 64 + (shift - 1) * 32 + Int((value >> UInt64(shift)) - 32)
    }

    static func middle(of index: Int) -> UInt64 {
        if index < 64 { return UInt64(index) }
        let shift = (index - 64) / 32 + 1
        let low = UInt64(32 + (index - 64) % 32) << UInt64(shift)
        return low + ((1 << UInt64(shift)) >> 1)
    }
}
