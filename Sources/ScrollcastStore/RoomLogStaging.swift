import GRDB

/// The write side of the log: entries are appended to `roomLogRecent` and folded into `roomLog`
/// in bulk (why: `RoomSchema`, `v4-logRecent`). Runs in the writer's transactions only.
enum RoomLogStaging {
    /// Rows `roomLogRecent` gathers before a batch folds them into `roomLog`. Large enough that a
    /// fold touches each logging room's index page once for many of its entries (500 rooms at
    /// the drag load's 54,000 entries/s: a fold every 0.3 s, ~30 entries per room); small enough
    /// that the batch doing it (and a row move in it) is held up by tens of ms at most, and a
    /// reader's scan of the unindexed table stays short. What other sizes cost:
    /// bench/where-the-time-goes.md §13.
    static let foldRows: Int64 = 16_384

    /// Both tables' columns, in one order.
    static let columns = "id, room, life, entry, viewer, inputID, time, sequence, input"

    /// The id of the next entry: above every id of both tables, and above every log mark (so
    /// a log emptied by compaction does not start again under a mark and look old). Ids only
    /// grow (compaction cuts the log by id, readers page through it by id) and are kept when
    /// folded, so a reader paging through a room's log across transactions never sees an entry
    /// move.
    static func nextID(in db: Database) throws -> Int64 {
        let recent = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM roomLogRecent")) ?? 0
        let folded = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM roomLog")) ?? 0
        let marked = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(logID) FROM logMark")) ?? 0
        return max(recent, folded, marked) + 1
    }

    /// Folds when `roomLogRecent` holds `foldRows` rows or more (its ids are consecutive, so
    /// the span of its ids is its size; an id gap only makes the fold come early).
    static func foldIfDue(in db: Database) throws {
        guard let first = try Int64.fetchOne(db.cachedStatement(sql: "SELECT min(id) FROM roomLogRecent")),
              let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM roomLogRecent")),
              last - first + 1 >= foldRows else { return }
        try fold(in: db)
    }

    /// Moves every `roomLogRecent` row into `roomLog`, ids and all, in id order (so `roomLog`'s
    /// rowid tree is appended to, and each room's index entries go in one after another).
    static func fold(in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO roomLog (\(columns)) SELECT \(columns) FROM roomLogRecent ORDER BY id").execute()
        try db.cachedStatement(sql: "DELETE FROM roomLogRecent").execute()
    }
}
