/// A binary min-heap over an array: `push` and `popMin` cost O(log n), `min` O(1).
///
/// The one priority queue of the project (the room layer's tick deadlines, the link emulator's
/// due chunks), so the sift code exists once. Equal elements leave in no promised order (a binary
/// heap is not stable); users that need an order among ties put it in their `<`. Nothing is
/// removed from the middle: the users drop entries that went stale when they reach the top.
/// The methods are inlinable so each user gets a copy specialised to its element type.
public struct MinHeap<Element: Comparable> {
    @usableFromInline var storage: [Element] = []

    /// An empty heap.
    @inlinable public init() {}

    /// How many elements it holds.
    @inlinable public var count: Int { storage.count }

    /// Whether it holds none.
    @inlinable public var isEmpty: Bool { storage.isEmpty }

    /// The smallest element, without removing it.
    @inlinable public var min: Element? { storage.first }

    /// Adds `element`.
    @inlinable public mutating func push(_ element: Element) {
        storage.append(element)
        var child = storage.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { break }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the smallest element; nil when empty.
    @inlinable @discardableResult public mutating func popMin() -> Element? {
        guard let first = storage.first else { return nil }
        let last = storage.removeLast()
        guard !storage.isEmpty else { return first }
        storage[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < storage.count, storage[left] < storage[smallest] { smallest = left }
            if right < storage.count, storage[right] < storage[smallest] { smallest = right }
            if smallest == parent { return first }
            storage.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension MinHeap: Sendable where Element: Sendable {}
