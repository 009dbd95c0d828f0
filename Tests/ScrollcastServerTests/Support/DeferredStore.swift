@testable import ScrollcastRooms

/// A store whose row-move commits wait until the test lets them finish (or fail), as a store
/// writing on another thread would: to see what a room does before and after the commit.
final class DeferredStore: RoomStore {
    let inner = InMemoryRoomStore()
    private var waiting: [(RowMoveRecord, (Result<Void, RoomStoreError>) -> Void)] = []
    /// What `isAcceptingWrites` says: a test turns it off as a failing disk would.
    var accepting = true
    /// Every checkpoint the rooms made, in order.
    private(set) var checkpoints: [RoomCheckpoint] = []
    /// How often housekeeping ran.
    private(set) var housekeepingRuns = 0

    var isAcceptingWrites: Bool { accepting }
    func checkpoint(_ checkpoint: RoomCheckpoint) {
        checkpoints.append(checkpoint)
        inner.checkpoint(checkpoint)
    }
    func housekeeping() { housekeepingRuns += 1 }

    var pendingCommits: Int { waiting.count }

    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? { try inner.loadRoom(named: name) }
    func roomCreated(_ settings: RoomSettings) { inner.roomCreated(settings) }
    func append(_ entry: RoomLogEntry, toRoom room: String) { inner.append(entry, toRoom: room) }
    func roomEvicted(named name: String) { inner.roomEvicted(named: name) }

    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        waiting.append((move, completion))
    }

    /// Completes the oldest waiting commit with success (stored in `inner`) or `failure`.
    func finishNext(failing failure: RoomStoreError? = nil) {
        let (move, completion) = waiting.removeFirst()
        if let failure { return completion(.failure(failure)) }
        inner.commitRowMove(move, completion: completion)
    }
}
