import GRDB

/// The read side of the log: a room's entries are its `roomLog` rows, then its `roomLogRecent`
/// rows — its ids in the first are all below its ids in the second, since `RoomLogStaging`
/// numbers entries above both tables and folds the whole stage at once. Both are read in one
/// transaction: a fold between two reads would move rows from one table to the other.
enum RoomLogRows {
    /// Life `life` of room `room`: its rows with ids in `after + 1 ... upTo`, in id order, at
    /// most `limit` of them.
    static func fetch(_ db: Database, room: String, life: Int, after: Int64 = 0, upTo: Int64 = .max,
                      limit: Int = .max) throws -> [Row] {
        var rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(RoomLogCoding.selectedColumns) FROM roomLog WHERE room = ? AND life = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?
            """), arguments: [room, life, after, upTo, limit])
        guard rows.count < limit else { return rows }
        let folded = rows.last.map(RoomLogCoding.id(of:)) ?? after
        // Unindexed, but small (`RoomLogStaging.foldRows` rows at most, and one batch).
        rows += try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(RoomLogCoding.selectedColumns) FROM roomLogRecent WHERE room = ? AND life = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?
            """), arguments: [room, life, folded, upTo, limit - rows.count])
        return rows
    }

    /// The id of the last entry of life `life` of room `room`, nil if it has none.
    static func lastID(_ db: Database, room: String, life: Int) throws -> Int64? {
        let arguments: StatementArguments = [room, life]
        if let recent = try Int64.fetchOne(db, sql: "SELECT max(id) FROM roomLogRecent WHERE room = ? AND life = ?",
                                           arguments: arguments) {
            return recent
        }
        return try Int64.fetchOne(db, sql: "SELECT max(id) FROM roomLog WHERE room = ? AND life = ?", arguments: arguments)
    }

    /// Every row of room `room`, every life, ordered by life, then id.
    static func all(_ db: Database, room: String) throws -> [Row] {
        let lives = try Int.fetchAll(db, sql: """
            SELECT DISTINCT life FROM roomLog WHERE room = ? UNION SELECT life FROM roomLogRecent WHERE room = ? ORDER BY 1
            """, arguments: [room, room])
        return try lives.flatMap { life in try fetch(db, room: room, life: life) }
    }
}
