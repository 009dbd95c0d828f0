import BinaryHeap

/// When some direction of some connection has a chunk due: a min-heap on `at`.
/// A direction may have several entries; a stale one (its chunks already gone) costs nothing.
struct DueHeap {
    struct Entry: Comparable {
        var at: UInt64
        var connection: Int
        var direction: Int

        /// Earlier first; entries due at the same instant leave in no promised order.
        static func < (a: Entry, b: Entry) -> Bool { a.at < b.at }
    }

    private var entries = MinHeap<Entry>()

    var isEmpty: Bool { entries.isEmpty }
    var earliest: UInt64? { entries.min?.at }

    mutating func push(_ entry: Entry) { entries.push(entry) }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = entries.min, first.at <= now else { return nil }
        return entries.popMin()
    }
}
