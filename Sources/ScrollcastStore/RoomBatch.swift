import Foundation
import GRDB
import ScrollcastRooms

/// The SQL of each writer operation, run inside the batch's transaction.
enum RoomBatch {
    /// What a committed batch did.
    struct Outcome {
        /// Each row move's outcome, in order.
        var moves: [Result<Void, RoomStoreError>] = []
        /// What each compaction in the batch removed.
        var compactions: [RoomCompaction.Outcome] = []
        /// The rest of a compaction that stopped at its chunk size, to queue again.
        var moreCompaction: RoomCompaction?
    }

    /// Writes `operations` in order in `db`. A move that the file cannot take — its room is not
    /// there, or the stored move is not the one before it — fails alone (nothing is thrown, so
    /// the rest of the batch still commits); an SQLite error throws and rolls the whole batch
    /// back.
    static func write(_ operations: [RoomWriter.Operation], in db: Database) throws -> Outcome {
        var outcome = Outcome()
        // Read once, on the batch's first log entry: the batch is the only writer meanwhile.
        var nextLogID: Int64?
        var appender: RoomLogAppender?
        for operation in operations {
            switch operation {
            case let .created(settings, life, date):
                // A name the file already has is a room that could not be restored (its scene
                // or rows changed): it starts afresh, in a new life, keeping its old log.
                try db.cachedStatement(sql: """
                    INSERT INTO room (name, sceneName, driverKeyDigest, rowOrder, rowMoveVersion, life, createdAt, lastUsedAt)
                    VALUES (?, ?, ?, '[]', 0, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET
                      sceneName = excluded.sceneName, driverKeyDigest = excluded.driverKeyDigest,
                      rowOrder = '[]', rowMoveVersion = 0, life = excluded.life,
                      createdAt = excluded.createdAt, lastUsedAt = excluded.lastUsedAt
                    """).execute(arguments: [settings.name, settings.sceneName, settings.driverKeyDigest, life, date, date])
            case let .restored(room, life, date):
                try db.cachedStatement(sql: "UPDATE room SET life = ?, lastUsedAt = ? WHERE name = ?")
                    .execute(arguments: [life, date, room])
            case let .log(room, life, entry):
                let id = try nextLogID ?? RoomLogStaging.nextID(in: db)
                if appender == nil { appender = try RoomLogAppender(db) }
                try appender?.append(entry, id: id, room: room, life: life)
                nextLogID = id + 1
            case let .move(move, date, _):
                // Only on top of the move before it: a move built on one that failed fails too.
                try db.cachedStatement(sql: """
                    UPDATE room SET rowOrder = ?, rowMoveVersion = ?, lastUsedAt = ? WHERE name = ? AND rowMoveVersion = ?
                    """).execute(arguments: [RowOrderCoding.encode(move.rowOrder), move.rowMoveVersion, date, move.room,
                                                    move.rowMoveVersion - 1])
                outcome.moves.append(db.changesCount == 1 ? .success(()) : .failure(RoomStoreError(
                    "room '\(move.room)' is not in the store, or its stored move is not \(move.rowMoveVersion - 1)")))
            case let .evicted(room, date):
                try db.cachedStatement(sql: "UPDATE room SET lastUsedAt = ? WHERE name = ?")
                    .execute(arguments: [date, room])
            case let .checkpoint(checkpoint, date):
                try db.cachedStatement(sql: "UPDATE room SET restingOffset = ?, lastUsedAt = ? WHERE name = ?")
                    .execute(arguments: [checkpoint.restingOffset, date, checkpoint.room])
            case let .compact(compaction):
                let (done, more) = try compaction.run(in: db)
                outcome.compactions.append(done)
                outcome.moreCompaction = more
            }
        }
        if nextLogID != nil { try RoomLogStaging.foldIfDue(in: db) }
        return outcome
    }

    /// Rewrites the probe row: a write that needs the file to take one, whatever is queued.
    static func probe(at date: Date, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO writeProbe (id, at) VALUES (1, ?)").execute(arguments: [date])
    }
}
