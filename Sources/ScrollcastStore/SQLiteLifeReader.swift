import GRDB
import ScrollcastRooms
import Synchronization

/// A room's latest life read in batches for a recording export, on the export's worker: first
/// the store's queued writes, then the life's start and the last log id it has now (so the
/// recording ends where the room was when the export began), then the log a batch at a time by
/// id, each batch its own short read (a slow client never holds a transaction open).
final class SQLiteLifeReader: RoomLifeReader {
    private let database: RoomDatabase
    private let writer: RoomWriter
    private let room: String
    private struct Cursor {
        var life = 0
        var afterID: Int64 = 0
        var lastID: Int64 = 0
    }
    private let cursor = Mutex(Cursor())

    init(database: RoomDatabase, writer: RoomWriter, room: String) {
        self.database = database
        self.writer = writer
        self.room = room
    }

    func start() throws(RoomStoreError) -> RoomLifeStart? {
        writer.drain()
        let (room, database) = (room, database)
        let found: (RoomLifeStart, Int64)? = try read { db in
            guard let start = try database.lifeStart(db, room: room, life: nil) else { return nil }
            let last = try RoomLogRows.lastID(db, room: room, life: start.life) ?? 0
            return (start, last)
        }
        guard let (start, last) = found else { return nil }
        cursor.withLock { $0 = Cursor(life: start.life, afterID: 0, lastID: last) }
        return start
    }

    func nextEntries(limit: Int) throws(RoomStoreError) -> [RoomLogEntry] {
        let position = cursor.withLock { $0 }
        guard position.afterID < position.lastID else { return [] }
        let (room, path) = (room, database.path)
        let rows: [Row] = try read { db in
            try RoomLogRows.fetch(db, room: room, life: position.life, after: position.afterID, upTo: position.lastID,
                                  limit: limit)
        }
        var entries: [RoomLogEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows { try entries.append(RoomLogCoding.decode(row, room: room, file: path).entry) }
        let next = rows.last.map(RoomLogCoding.id(of:)) ?? position.lastID
        cursor.withLock { $0.afterID = next }
        return entries
    }

    private func read<T>(_ body: (Database) throws -> T) throws(RoomStoreError) -> T {
        do {
            return try database.pool.read(body)
        } catch let error as RoomStoreError {
            throw error
        } catch {
            throw RoomStoreError("reading room '\(room)' from \(database.path) failed: \(error)")
        }
    }
}
