/// The order and pace in which a shard opens its connections: rooms interleaved, spread evenly
/// over `--ramp`, and never more than a batch per tick, so the server's listen backlog never
/// overflows.
struct ConnectionRamp {
    /// The whole run opens at most this many connections per tick.
    static let openBatchPerRun = 100
    /// How often the ramp comes back for the connections whose turn has come.
    static let tickMilliseconds = 10.0

    /// Connections opened per tick: the run's batch split between the shards.
    let batch: Int
    /// How long the ramp lasts, ms from the run's start.
    let lengthMs: Double
    private let rampSeconds: Double
    private let total: Int
    /// How many connections have been opened so far (they open in order).
    private(set) var opened = 0

    /// A ramp for `total` connections of one of `threads` shards.
    init(total: Int, rampSeconds: Double, threads: Int) {
        self.total = total
        self.rampSeconds = rampSeconds
        lengthMs = rampSeconds * 1000
        batch = max(1, Self.openBatchPerRun / threads)
    }

    /// Sorts connections into opening order: every room's founder (cluster runs), then the first
    /// member of every room, then the second, and so on, so a ramp fills every room at the same pace.
    static func openingOrder(_ connections: [LoadConnection], connectionsPerRoom: Int) -> [LoadConnection] {
        func key(_ c: LoadConnection) -> (Int, Int, Int) { (c.isFounder ? 0 : 1, c.index % connectionsPerRoom, c.index) }
        return connections.sorted { key($0) < key($1) }
    }

    /// Whether every connection has been opened.
    var isComplete: Bool { opened == total }

    /// Positions (in opening order) to open `elapsedSeconds` into the run: those whose turn has
    /// come, at least the first, at most a batch. Call `didOpen()` after opening each, not before:
    /// while one opens, the ramp must not count it yet.
    func due(elapsedSeconds: Double) -> Range<Int> {
        let due = rampSeconds > 0 ? min(total, Int((elapsedSeconds / rampSeconds * Double(total)).rounded(.up))) : total
        return opened..<max(opened, min(max(due, 1), total, opened + batch))
    }

    /// Counts one more connection opened.
    mutating func didOpen() {
        opened += 1
    }
}
