import Foundation
import GRDB

/// How long the file keeps what: rooms nobody used for `roomTTL`, and log entries older than
/// `logWindow`, are deleted by compactions that run every `compactionInterval` (the first one at
/// the store's first housekeeping, so at start). nil keeps them for ever.
public struct RoomRetention: Sendable, Hashable {
    /// A room whose `lastUsedAt` (made, restored, moved, checkpointed at rest or evicted) is
    /// older than this, and which is not live, is deleted with its log. Default 7 days.
    public var roomTTL: TimeInterval?
    /// Log entries written longer ago than this are deleted. Default 24 hours. The checkpoint
    /// (row order, resting offset) is in the room's row, so rooms restore without their log.
    public var logWindow: TimeInterval?
    /// Time between compactions. Default 5 minutes; the log is kept up to this much longer than
    /// `logWindow`.
    public var compactionInterval: TimeInterval

    /// Retention with the given limits.
    public init(roomTTL: TimeInterval? = 7 * 86_400, logWindow: TimeInterval? = 86_400,
                compactionInterval: TimeInterval = 300) {
        self.roomTTL = roomTTL
        self.logWindow = logWindow
        self.compactionInterval = compactionInterval
    }
}

/// One compaction of the file at wall-clock time `at`: marks how far the log has been written,
/// deletes rooms past their time to live (except `live` ones) with their log, and deletes log
/// entries older than the window, at most `chunk` rows per transaction so a large backlog never
/// holds up row moves for long (the rest is queued again as a continuation).
struct RoomCompaction: Sendable {
    /// What one transaction of a compaction removed.
    struct Outcome: Sendable, Hashable {
        /// Rooms deleted for being unused past their time to live.
        var removedRooms: [String] = []
        /// Log entries deleted (those of removed rooms and those older than the window).
        var deletedLogEntries = 0
    }

    var at: Date
    var retention: RoomRetention
    /// Rooms in memory now: never deleted, however old their `lastUsedAt`.
    var live: Set<String>
    var chunk = 20_000
    /// False for the continuation of a compaction that had more log to delete.
    var isFirstPass = true

    /// Runs in the batch's transaction; returns what it removed and, if it stopped at `chunk`,
    /// the rest of it.
    func run(in db: Database) throws -> (Outcome, RoomCompaction?) {
        var outcome = Outcome()
        if isFirstPass {
            // The whole log in `roomLog`, so what follows reads and deletes one table.
            try RoomLogStaging.fold(in: db)
            let lastMark = try Int64.fetchOne(db, sql: "SELECT max(logID) FROM logMark") ?? 0
            if let lastLog = try Int64.fetchOne(db, sql: "SELECT max(id) FROM roomLog"), lastLog > lastMark {
                try db.execute(sql: "INSERT INTO logMark (logID, at) VALUES (?, ?)", arguments: [lastLog, at])
            }
            if let ttl = retention.roomTTL {
                let expired = try String.fetchAll(db, sql: "SELECT name FROM room WHERE lastUsedAt < ?",
                                                  arguments: [at.addingTimeInterval(-ttl)])
                for name in expired where !live.contains(name) {
                    try db.execute(sql: "DELETE FROM room WHERE name = ?", arguments: [name])
                    // A room made again under this name starts at life 1: its old lives' starts
                    // must not outlive their logs.
                    try db.execute(sql: "DELETE FROM roomLife WHERE room = ?", arguments: [name])
                    try db.execute(sql: "DELETE FROM roomLog WHERE room = ?", arguments: [name])
                    outcome.deletedLogEntries += db.changesCount
                    outcome.removedRooms.append(name)
                }
            }
        }
        guard let window = retention.logWindow,
              let upTo = try Int64.fetchOne(db, sql: "SELECT max(logID) FROM logMark WHERE at <= ?",
                                            arguments: [at.addingTimeInterval(-window)]) else {
            return (outcome, nil)
        }
        // Log ids only grow, so "written before the mark" is a rowid range: deleted from its
        // low end, a chunk at a time.
        let first = try Int64.fetchOne(db, sql: "SELECT min(id) FROM roomLog") ?? upTo + 1
        let end = min(upTo, first + Int64(chunk) - 1)
        if first <= end {
            try db.execute(sql: "DELETE FROM roomLog WHERE id <= ?", arguments: [end])
            outcome.deletedLogEntries += db.changesCount
        }
        guard end >= upTo else {
            var rest = self
            rest.isFirstPass = false
            return (outcome, rest)
        }
        try db.execute(sql: "DELETE FROM logMark WHERE logID <= ?", arguments: [upTo])
        return (outcome, nil)
    }
}
