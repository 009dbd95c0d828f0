/// Delays between reconnect attempts: 50 ms doubling to 1 s, so a restart of Redis is noticed
/// quickly and a long outage costs at most one attempt a second.
struct Backoff {
    static let first = 50
    static let limit = 1000
    private(set) var nextMilliseconds = Backoff.first

    /// The delay to wait now; the one after it is twice as long, up to the limit.
    mutating func next() -> Int {
        defer { nextMilliseconds = min(nextMilliseconds * 2, Self.limit) }
        return nextMilliseconds
    }

    mutating func reset() { nextMilliseconds = Self.first }
}
