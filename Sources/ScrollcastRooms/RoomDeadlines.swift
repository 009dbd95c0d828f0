import BinaryHeap

/// Which rooms want `tick()` and when: a min-heap of room deadlines with lazy invalidation, so
/// setting the frame timer and finding the rooms due cost O(log rooms) per change rather than a
/// walk over every room. A room that may have moved its deadline is marked (`deadlineMayHaveMoved`);
/// `settle` pushes the deadlines of marked rooms; an entry that no longer matches its room (a
/// later deadline pushed since, the room gone) is dropped when it reaches the top.
@RoomActor struct RoomDeadlines {
    /// A room's deadline; the heap orders entries by deadline alone.
    private struct Entry: Comparable {
        let deadline: Double
        let room: Room

        static func < (a: Entry, b: Entry) -> Bool { a.deadline < b.deadline }
        static func == (a: Entry, b: Entry) -> Bool { a.deadline == b.deadline && a.room === b.room }
    }

    private var heap = MinHeap<Entry>()
    /// Rooms marked since the last `settle`.
    private var marked: [Room] = []
    private var isMarked: Set<ObjectIdentifier> = []
    /// The deadline last pushed for each room, so a room marked many times with the same
    /// deadline (every input within a frame) is pushed once.
    private var pushed: [ObjectIdentifier: Double] = [:]

    /// Entries in the heap, stale ones included (tests).
    var count: Int { heap.count }

    /// `room`'s deadline may have changed; it is looked at in the next `settle`.
    mutating func deadlineMayHaveMoved(of room: Room) {
        if isMarked.insert(ObjectIdentifier(room)).inserted { marked.append(room) }
    }

    /// Pushes the current deadline of every marked room that `isLive` still holds.
    mutating func settle(isLive: (Room) -> Bool) {
        guard !marked.isEmpty else { return }
        for room in marked {
            let id = ObjectIdentifier(room)
            guard isLive(room), let deadline = room.nextTickDeadline else {
                pushed[id] = nil
                continue
            }
            if pushed[id] == deadline { continue }
            pushed[id] = deadline
            heap.push(Entry(deadline: deadline, room: room))
        }
        marked.removeAll(keepingCapacity: true)
        isMarked.removeAll(keepingCapacity: true)
    }

    /// The earliest deadline of a live room, after dropping stale entries from the top.
    mutating func earliest(isLive: (Room) -> Bool) -> Double? {
        settle(isLive: isLive)
        while let top = heap.min {
            if isCurrent(top, isLive: isLive) { return top.deadline }
            heap.popMin()
        }
        return nil
    }

    /// Removes and returns the live rooms due by `time`, each once, earliest first. Their
    /// entries are gone: the caller ticks them, and a ticked room marks itself again.
    mutating func takeDue(by time: Double, isLive: (Room) -> Bool) -> [Room] {
        settle(isLive: isLive)
        var due: [Room] = []
        while let top = heap.min, top.deadline <= time {
            heap.popMin()
            guard isCurrent(top, isLive: isLive) else { continue }
            pushed[ObjectIdentifier(top.room)] = nil
            due.append(top.room)
        }
        return due
    }

    private func isCurrent(_ entry: Entry, isLive: (Room) -> Bool) -> Bool {
        isLive(entry.room) && pushed[ObjectIdentifier(entry.room)] == entry.deadline
    }
}
