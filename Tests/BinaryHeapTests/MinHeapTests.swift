import BinaryHeap
import Testing

/// The one min-heap: elements leave smallest first whatever order they came in, ties all leave
/// before anything larger and none is lost, and interleaved pushes and pops agree with a sorted
/// list kept beside it.
@Suite("Min-heap")
struct MinHeapTests {
    /// A key that sorts by `priority` only; `tag` tells tied elements apart.
    private struct Tagged: Comparable {
        let priority: Int
        let tag: Int
        static func < (a: Tagged, b: Tagged) -> Bool { a.priority < b.priority }
    }

    /// A seeded generator (SplitMix64), so a failure replays.
    private struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func anEmptyHeapHasNoMinimumAndPopsNothing() {
        var heap = MinHeap<Int>()
        #expect(heap.isEmpty)
        #expect(heap.min == nil)
        #expect(heap.popMin() == nil)
        heap.push(3)
        #expect(heap.count == 1)
        #expect(heap.popMin() == 3)
        #expect(heap.isEmpty)
    }

    @Test(arguments: [1, 2, 3, 7, 8, 100, 1_000])
    func elementsLeaveSmallestFirstWhateverTheOrderTheyCameIn(count: Int) {
        var generator = Seeded(state: UInt64(count))
        let values = (0..<count).map { _ in Int.random(in: -500...500, using: &generator) }
        for input in [values, values.sorted(), values.sorted(by: >)] {
            var heap = MinHeap<Int>()
            for value in input { heap.push(value) }
            #expect(heap.count == count)
            #expect(heap.min == input.min())
            var out: [Int] = []
            while let value = heap.popMin() { out.append(value) }
            #expect(out == values.sorted())
        }
    }

    @Test func tiedElementsAllLeaveBeforeAnythingLargerAndNoneIsLost() {
        var heap = MinHeap<Tagged>()
        // Ten elements at each of three priorities, pushed interleaved and largest first.
        for tag in 0..<30 { heap.push(Tagged(priority: 2 - tag % 3, tag: tag)) }
        var out: [Tagged] = []
        while let element = heap.popMin() { out.append(element) }
        #expect(out.map(\.priority) == Array(repeating: 0, count: 10) + Array(repeating: 1, count: 10)
            + Array(repeating: 2, count: 10))
        #expect(Set(out.map(\.tag)) == Set(0..<30))
    }

    @Test func interleavedPushesAndPopsAgreeWithASortedList() {
        var generator = Seeded(state: 20)
        var heap = MinHeap<Int>()
        var model: [Int] = []
        for _ in 0..<5_000 {
            if model.isEmpty || Int.random(in: 0..<3, using: &generator) > 0 {
                let value = Int.random(in: 0..<200, using: &generator)
                heap.push(value)
                model.append(value)
                model.sort()
            } else {
                #expect(heap.popMin() == model.removeFirst())
            }
            #expect(heap.min == model.first)
            #expect(heap.count == model.count)
        }
    }
}
