/// A token bucket: `capacity` tokens, refilled at `ratePerSecond`, one spent per event.
/// Time is passed in (ms on any monotonic clock) so the bucket is a plain value.
public struct TokenBucket: Sendable, Hashable {
    /// Most tokens the bucket holds (the burst size).
    public let capacity: Double
    /// Tokens added per second.
    public let ratePerSecond: Double
    /// Tokens available at `updatedAt`.
    public private(set) var tokens: Double
    private var updatedAt: Double

    /// A full bucket at time `now` (ms).
    public init(capacity: Double, ratePerSecond: Double, now: Double) {
        self.capacity = capacity
        self.ratePerSecond = ratePerSecond
        self.tokens = capacity
        self.updatedAt = now
    }

    /// Takes one token if there is one at `now` (ms); returns whether it did.
    public mutating func take(now: Double) -> Bool {
        if now > updatedAt {
            tokens = min(capacity, tokens + (now - updatedAt) / 1000 * ratePerSecond)
            updatedAt = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// Per-connection input rate limit: a token bucket for inputs, and a second, slower one for
/// refusals, so a client that keeps flooding after being refused is eventually disconnected.
public struct InputRateLimiter: Sendable {
    /// What to do with one input.
    public enum Verdict: Sendable, Hashable {
        /// Within the limit: apply it.
        case accept
        /// Over the limit: refuse it, keep the connection.
        case refuse
        /// Over the limit for too long: close the connection (1008).
        case disconnect
    }

    private var inputs: TokenBucket
    private var patience: TokenBucket

    /// A limiter allowing `ratePerSecond` inputs sustained with bursts of `burst`; after about
    /// `patience` refusals beyond what `patienceRefillPerSecond` forgives it says `.disconnect`.
    public init(ratePerSecond: Double = 240, burst: Double = 120, patience: Double = 120,
                patienceRefillPerSecond: Double = 24, now: Double) {
        inputs = TokenBucket(capacity: burst, ratePerSecond: ratePerSecond, now: now)
        self.patience = TokenBucket(capacity: patience, ratePerSecond: patienceRefillPerSecond, now: now)
    }

    /// Judges one input arriving at `now` (ms).
    public mutating func judge(now: Double) -> Verdict {
        if inputs.take(now: now) { return .accept }
        return patience.take(now: now) ? .refuse : .disconnect
    }
}
