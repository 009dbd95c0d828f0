/// Estimates a finger's release velocity from its recent samples.
///
/// Like UIKit's pan recogniser and zynga/scroller, it looks only at the last ~100 ms of movement
/// (an older movement says nothing about the flick) and fits a straight line through all of those
/// samples by least squares, which is much steadier than the last two points alone.
struct VelocityEstimator: Sendable, Hashable {
    /// Samples older than this (ms before the latest) are ignored.
    static let window: Double = 100
    /// Sanity cap on the estimate, pt/s (a flick on a phone rarely exceeds ~8,000 pt/s).
    static let maximumSpeed: Double = 12_000

    private(set) var samples: [(time: Double, y: Double)] = []

    init() {}

    /// An estimator holding exactly `samples` (restored from the engine's state bytes).
    init(samples: [(time: Double, y: Double)]) { self.samples = samples }

    /// Records the finger at viewport `y` at `time` (ms), forgetting samples outside the window.
    mutating func add(time: Double, y: Double) {
        samples.append((time, y))
        let cutoff = time - Self.window
        if let firstKept = samples.firstIndex(where: { $0.time >= cutoff }), firstKept > 0 {
            samples.removeFirst(firstKept)
        }
    }

    /// Finger velocity along y, pt/s, from the samples within `window` of `time`; 0 with fewer
    /// than two samples or no time between them.
    func velocity(at time: Double) -> Double {
        let cutoff = time - Self.window
        var n = 0.0, sumT = 0.0, sumY = 0.0
        for s in samples where s.time >= cutoff { n += 1; sumT += s.time; sumY += s.y }
        guard n >= 2 else { return 0 }
        let meanT = sumT / n, meanY = sumY / n
        var sxx = 0.0, sxy = 0.0
        for s in samples where s.time >= cutoff {
            let dt = s.time - meanT
            sxx += dt * dt
            sxy += dt * (s.y - meanY)
        }
        guard sxx > 0 else { return 0 }
        let perSecond = sxy / sxx * 1000
        return min(max(perSecond, -Self.maximumSpeed), Self.maximumSpeed)
    }

    static func == (a: Self, b: Self) -> Bool {
        a.samples.count == b.samples.count && zip(a.samples, b.samples).allSatisfy { $0.time == $1.time && $0.y == $1.y }
    }
    func hash(into hasher: inout Hasher) {
        for s in samples { hasher.combine(s.time); hasher.combine(s.y) }
    }
}
