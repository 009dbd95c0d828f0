import GRDB

/// The database's tables, as versioned migrations. A migration, once released, never changes:
/// a later schema is a new migration appended here, so any older file is brought forward and a
/// file from a newer build is recognised (it has identifiers this list lacks) and refused.
///
/// `room`: one row per room that was ever made —
/// - `name` (primary key, so `loadRoom` is one index lookup), `sceneName`;
/// - `driverKeyDigest`: `DriverKey.digest` of a locked room's key, NULL when unlocked; never
///   the key itself;
/// - `rowOrder`: JSON text of `[[Int]]`, row ids per section after the last durable move
///   (`[]`: the scene's own order); `rowMoveVersion`: the number of that move;
/// - `life`: which life of the room is running (see `roomLog`);
/// - `createdAt`, `lastUsedAt`: when it was made, and last created, restored, moved or evicted.
///
/// `roomLife` (from migration `v2-roomLife`): how each life of a room began, so a life can be replayed
/// (recordings) — `room`, `life`, and the room's `sceneName`, `rowOrder` (`[]`: the scene's own)
/// and `rowMoveVersion` when it began, `startedAt`. Triggers on `room` write it whenever a room
/// row is inserted or its `life` changes, in the same transaction, so the writer needs no code
/// for it. Lives that began before v2 have no row.
///
/// `roomLog`: what each room applied, in order (`id`) —
/// - `room`, and `life`: a room starts a new life each time it is made in memory (created, or
///   restored after eviction or a restart); its clock and frame numbers start again from 0, so
///   an entry means something only with its life;
/// - `entry`: `input`, a cancel the room applied itself (`cancelOnLeave`, `cancelOnUnavailable`
///   or `cancelOnTakeBack`, by cause; older files wrote every cancel as `cancelOnLeave`) or `frame`;
/// - inputs and cancels: `viewer`, `inputID` (the UInt64 id's bit pattern as a signed 64-bit
///   integer), `time` (room ms, after time mapping) and `input` (`InputKindCoding`'s text);
/// - frames: `sequence` (the frame's `seq`) and `time` (room ms the frame was taken at).
///
/// The log has no foreign key to `room` on purpose: a log row must never fail the batch it is
/// written in (and take other rooms' rows and row moves down with it).
///
/// From `v3-retention`:
/// - `room.restingOffset`: the content offset of the room's last checkpoint at rest (NULL: the
///   top). With `rowOrder`, it is the room's checkpoint: a restore reads this row alone, never
///   the log, however long the log is;
/// - `logMark`: `(logID, at)`, written at each compaction: every `roomLog` row with
///   `id <= logID` was written at or before `at` (wall clock). Log rows carry no time of their
///   own (they are many and small); the marks are what the log window is cut by;
/// - `writeProbe`: one row the writer rewrites to learn whether the file takes writes again
///   after a failure.
///
/// From `v4-logRecent`: `roomLogRecent`, the same columns as `roomLog` and no index. The writer
/// appends log entries here (with the ids they keep for good), and about every
/// `RoomLogStaging.foldRows` rows moves them into `roomLog` in one statement, in id order. Why:
/// `roomLog_byRoom` is keyed by room, so with many rooms logging at once each entry lands on its
/// own room's page of that index, and a 5 ms batch of a few hundred entries dirtied a few hundred
/// index pages, each written whole to the WAL (and again by the checkpoint). Appended here, a
/// batch dirties a few pages; the fold dirties each room's index page once per fold. Every
/// `roomLog` id is below every `roomLogRecent` id, so a room's log in order is its `roomLog`
/// rows, then its `roomLogRecent` rows (`RoomLogRows`).
enum RoomSchema {
    /// Every migration this build knows, oldest first.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "room", options: [.withoutRowID]) { t in
                t.primaryKey("name", .text)
                t.column("sceneName", .text).notNull()
                t.column("driverKeyDigest", .text)
                t.column("rowOrder", .text).notNull().defaults(to: "[]")
                t.column("rowMoveVersion", .integer).notNull().defaults(to: 0)
                t.column("life", .integer).notNull().defaults(to: 1)
                t.column("createdAt", .datetime).notNull()
                t.column("lastUsedAt", .datetime).notNull()
            }
            try db.create(table: "roomLog") { t in
                // INTEGER PRIMARY KEY is the rowid: no AUTOINCREMENT bookkeeping per insert.
                t.primaryKey("id", .integer)
                t.column("room", .text).notNull()
                t.column("life", .integer).notNull()
                t.column("entry", .text).notNull()
                t.column("viewer", .text)
                t.column("inputID", .integer)
                t.column("time", .double).notNull()
                t.column("sequence", .integer)
                t.column("input", .text)
            }
            // Reading one room's log (replay, recordings) in order without scanning every room's.
            try db.create(index: "roomLog_byRoom", on: "roomLog", columns: ["room", "life", "id"])
        }
        migrator.registerMigration("v2-roomLife") { db in
            try db.create(table: "roomLife", options: [.withoutRowID]) { t in
                t.column("room", .text).notNull()
                t.column("life", .integer).notNull()
                t.column("sceneName", .text).notNull()
                t.column("rowOrder", .text).notNull()
                t.column("rowMoveVersion", .integer).notNull()
                t.column("startedAt", .datetime).notNull()
                t.primaryKey(["room", "life"])
            }
            // A created room is inserted (or, when its name is taken, updated with a new life
            // and the order reset to '[]'); a restored one gets a new life. Either way the row
            // as it is then is how the life began.
            let record = """
                INSERT OR REPLACE INTO roomLife (room, life, sceneName, rowOrder, rowMoveVersion, startedAt)
                VALUES (NEW.name, NEW.life, NEW.sceneName, NEW.rowOrder, NEW.rowMoveVersion, NEW.lastUsedAt);
                """
            try db.execute(sql: "CREATE TRIGGER roomLife_onInsert AFTER INSERT ON room BEGIN \(record) END")
            try db.execute(sql: """
                CREATE TRIGGER roomLife_onNewLife AFTER UPDATE OF life ON room WHEN NEW.life IS NOT OLD.life
                BEGIN \(record) END
                """)
        }
        migrator.registerMigration("v3-retention") { db in
            try db.alter(table: "room") { t in
                t.add(column: "restingOffset", .double)
            }
            // Finding rooms past their time to live without reading every room.
            try db.create(index: "room_byLastUsed", on: "room", columns: ["lastUsedAt"])
            try db.create(table: "logMark") { t in
                t.primaryKey("logID", .integer)
                t.column("at", .datetime).notNull()
            }
            try db.create(table: "writeProbe") { t in
                t.primaryKey("id", .integer)
                t.column("at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v4-logRecent") { db in
            // `roomLog`'s columns as v1 made them, spelled out again rather than shared: a released
            // migration never changes, so neither may what it creates (`fold` copies by name).
            try db.create(table: "roomLogRecent") { t in
                t.primaryKey("id", .integer)
                t.column("room", .text).notNull()
                t.column("life", .integer).notNull()
                t.column("entry", .text).notNull()
                t.column("viewer", .text)
                t.column("inputID", .integer)
                t.column("time", .double).notNull()
                t.column("sequence", .integer)
                t.column("input", .text)
            }
        }
        return migrator
    }
}
