/// A `RoomStore` in memory: what `--data none` runs with, and what tests read back.
///
/// A room's record lives while the room does and is dropped when it is evicted, so a room that
/// comes back after its grace period starts afresh, as it always has without a durable store.
/// Commits complete at once, on the caller's thread (the room thread). The log keeps only the
/// latest `logLimit` entries per room: nothing reads it in production, and memory stays bounded.
@RoomActor public final class InMemoryRoomStore: RoomStore {
    /// Entries of the log kept per room.
    public let logLimit: Int
    private var rooms: [String: Record] = [:]

    private struct Record {
        var stored: StoredRoom
        var log: [RoomLogEntry] = []
        var logStart = 0

        /// A ring of `limit` entries: once full, each entry takes the oldest one's place.
        mutating func append(_ entry: RoomLogEntry, limit: Int) {
            if log.count < limit {
                log.append(entry)
            } else {
                log[logStart] = entry
                logStart = (logStart + 1) % limit
            }
        }
    }

    /// An empty store keeping the last `logLimit` log entries of each room.
    public init(logLimit: Int = 1024) {
        self.logLimit = max(1, logLimit)
    }

    /// Puts a room in the store as if it had lived before (tests of restoring).
    public func seed(_ room: StoredRoom) {
        rooms[room.settings.name] = Record(stored: room)
    }

    /// The room's stored state, if it is in the store.
    public func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? {
        rooms[name]?.stored
    }

    /// Records the settings; the row order is the scene's own until a move.
    public func roomCreated(_ settings: RoomSettings) {
        rooms[settings.name] = Record(stored: StoredRoom(settings: settings, rowOrder: [], rowMoveVersion: 0))
    }

    /// Appends to the room's log, forgetting the oldest entry past `logLimit`.
    public func append(_ entry: RoomLogEntry, toRoom room: String) {
        rooms[room]?.append(entry, limit: logLimit)
    }

    /// Stores the new order and completes at once.
    public func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        guard let stored = rooms[move.room]?.stored else {
            return completion(.failure(RoomStoreError("room '\(move.room)' is not in the store")))
        }
        guard stored.rowMoveVersion == move.rowMoveVersion - 1 else {
            return completion(.failure(RoomStoreError(
                "move \(move.rowMoveVersion) of room '\(move.room)' does not follow the stored move \(stored.rowMoveVersion)")))
        }
        rooms[move.room]?.stored.rowOrder = move.rowOrder
        rooms[move.room]?.stored.rowMoveVersion = move.rowMoveVersion
        completion(.success(()))
    }

    /// Keeps the resting offset, for a room restored while the store still has it.
    public func checkpoint(_ checkpoint: RoomCheckpoint) {
        rooms[checkpoint.room]?.stored.restingOffset = checkpoint.restingOffset
    }

    /// Forgets the room.
    public func roomEvicted(named name: String) {
        rooms[name] = nil
    }

    /// The room's log, oldest kept entry first.
    public func log(ofRoom name: String) -> [RoomLogEntry] {
        guard let record = rooms[name] else { return [] }
        return Array(record.log[record.logStart...] + record.log[..<record.logStart])
    }
}
