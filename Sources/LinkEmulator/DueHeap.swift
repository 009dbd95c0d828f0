/// When some direction of some connection has a chunk due: a binary min-heap on `at`.
/// A direction may have several entries; a stale one (its chunks already gone) costs nothing.
struct DueHeap {
    struct Entry {
        var at: UInt64
        var connection: Int
        var direction: Int
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var earliest: UInt64? { entries.first?.at }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].at < entries[parent].at else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = entries.first, first.at <= now else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].at < entries[smallest].at { smallest = left }
            if right < entries.count, entries[right].at < entries[smallest].at { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
