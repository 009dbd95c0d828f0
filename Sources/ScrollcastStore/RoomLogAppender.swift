import GRDB
import GRDBSQLite
import ScrollcastRooms

/// Appends log entries to `roomLogRecent` through SQLite's own bind calls on GRDB's prepared
/// statement. Why not `Statement.execute(arguments:)`: per row it builds a `StatementArguments`
/// array of existentials, checks it against the statement and nests a closure per text
/// argument, a large part of the writer's time with many rooms logging (the log is by far its
/// most frequent row; bench/where-the-time-goes.md §13). This file is the store's only C wrapper:
/// the statement pointer never leaves it, and it is used inside one writer transaction.
struct RoomLogAppender {
    private let statement: Statement
    private let connection: SQLiteConnection

    /// The appender for `db`'s current transaction.
    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: """
            INSERT INTO roomLogRecent (\(RoomLogStaging.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        connection = db.sqliteConnection!
    }

    /// Writes `entry` of life `life` of `room` as entry `id` (columns as `RoomSchema` describes).
    func append(_ entry: RoomLogEntry, id: Int64, room: String, life: Int) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, id)
        bind(room, at: 2)
        sqlite3_bind_int64(handle, 3, Int64(life))
        switch entry {
        case let .input(viewer, event), let .cancel(viewer, event, _):
            bind(RoomLogCoding.name(of: entry), at: 4)
            bind(viewer, at: 5)
            sqlite3_bind_int64(handle, 6, Int64(bitPattern: event.id))
            sqlite3_bind_double(handle, 7, event.time)
            sqlite3_bind_null(handle, 8)
            bind(InputKindCoding.encode(event.kind), at: 9)
        case let .frame(sequence, time):
            bind(RoomLogCoding.frame, at: 4)
            sqlite3_bind_null(handle, 5)
            sqlite3_bind_null(handle, 6)
            sqlite3_bind_double(handle, 7, time)
            sqlite3_bind_int64(handle, 8, Int64(bitPattern: sequence))
            sqlite3_bind_null(handle, 9)
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            // Reset so that the statement is not left busy; the error is the step's.
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Binds `text` as TEXT; SQLite copies it (`SQLITE_TRANSIENT`), so it need not outlive the call.
    private func bind(_ text: String, at index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            if let start = bytes.baseAddress {
                _ = sqlite3_bind_text(statement.sqliteStatement, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self),
                                      Int32(bytes.count), Self.transient)
            } else {
                // An empty buffer may have no address, and a NULL pointer would bind NULL, not ''.
                _ = sqlite3_bind_text(statement.sqliteStatement, index, "", 0, Self.transient)
            }
        }
    }

    /// `SQLITE_TRANSIENT`, which Swift does not import (a C macro casting -1 to a function).
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }
}
