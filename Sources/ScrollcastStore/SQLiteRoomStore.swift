import Dispatch
import Foundation
import GRDB
import ScrollcastRooms

/// A `RoomStore` in an SQLite file (`--data PATH`): rooms survive eviction and restarts with
/// their scene, lock (as the key's digest), row order and resting offset, and each room's log is
/// kept for `RoomRetention.logWindow`; rooms unused for `RoomRetention.roomTTL` are deleted.
///
/// Called on the room thread, like every `RoomStore`. Writes go to one `RoomWriter` queue and
/// are batched, so `append` (every input, every frame) and `roomCreated` never wait for the
/// disk. `commitRowMove` completes through the `RoomScheduler` after its transaction commits,
/// in commit order. `loadRoom` reads on the calling thread: it runs once per room's first join
/// and is one primary-key lookup (after writing the room's own queued operations, if any, so it
/// never reads a state older than the room last had). A restore reads the room's row alone —
/// its checkpoint — never its log.
///
/// When writing fails (disk full, file made read-only), `isAcceptingWrites` turns false until a
/// transaction commits again; meanwhile the writer probes every `retryInterval` (see
/// `RoomWriter`).
public final class SQLiteRoomStore: RoomStore {
    /// The file.
    public let database: RoomDatabase
    /// What the file keeps, and for how long.
    public let retention: RoomRetention
    private let scheduler: RoomScheduler
    private let writer: RoomWriter
    private let now: @Sendable () -> Date
    /// Each known room's current life (see `RoomSchema`), so log entries need no read. A room
    /// is here from its creation or restore until its eviction: these are the live rooms.
    private var lives: [String: Int] = [:]
    private var lastCompaction: Date?

    /// A store writing to `database`, handing completions to the room thread through
    /// `scheduler`. Log entries are written at least every `flushInterval`, or as soon as
    /// `batchLimit` operations wait. `onWriteFailure` hears (on the writer queue, once per
    /// outage) that writing started failing, `onRecovery` that it works again, and
    /// `onCompaction` what a compaction removed; while writing fails a probe runs every
    /// `retryInterval`. `now` is the wall clock: it stamps `createdAt`/`lastUsedAt` and is
    /// what `retention` is measured on.
    public init(database: RoomDatabase, scheduler: RoomScheduler,
                flushInterval: DispatchTimeInterval = .milliseconds(5), batchLimit: Int = 1024,
                retention: RoomRetention = RoomRetention(), retryInterval: DispatchTimeInterval = .seconds(1),
                onWriteFailure: @escaping @Sendable (String) -> Void = { _ in },
                onRecovery: @escaping @Sendable () -> Void = {},
                onCompaction: @escaping @Sendable (_ removedRooms: Int, _ deletedLogEntries: Int) -> Void = { _, _ in },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.scheduler = scheduler
        self.retention = retention
        self.now = now
        self.writer = RoomWriter(database: database, flushInterval: flushInterval, batchLimit: batchLimit,
                                 retryInterval: retryInterval, now: now,
                                 onFailure: onWriteFailure, onRecovery: onRecovery,
                                 onCompaction: { onCompaction($0.removedRooms.count, $0.deletedLogEntries) })
    }

    // MARK: RoomStore

    /// The stored room, with its row order, move version and resting offset; nil if the file
    /// has no such room, or has one unused for longer than `retention.roomTTL` (which the next
    /// compaction deletes). A room it returns starts a new life. One row is read, not the log.
    /// Reads on the calling thread (the room thread): joins use the asynchronous form.
    public func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? {
        try adopt(try Self.readRoom(named: name, database: database, writer: writer), named: name)
    }

    /// `loadRoom` with the read on `readers` (after the room's queued writes, if any), and
    /// `completion` on the room thread, through the scheduler: a join waiting for its room
    /// stalls no other room.
    public func loadRoom(named name: String, completion: @escaping (Result<StoredRoom?, RoomStoreError>) -> Void) {
        // The completion and the store belong to the room thread; they only travel through the
        // reader queue and are used back on the room thread.
        let back = RoomBound((store: self, completion: completion))
        let (database, writer, scheduler) = (database, writer, scheduler)
        // Counted as live meanwhile, so a compaction queued during the read keeps the room.
        loading[name, default: 0] += 1
        readers.async {
            let read = Result { () throws(RoomStoreError) in try Self.readRoom(named: name, database: database, writer: writer) }
            scheduler.execute { RoomActor.assumeIsolated {
                let (store, completion) = back.value
                store.loading[name, default: 1] -= 1
                if store.loading[name] == 0 { store.loading[name] = nil }
                completion(read.flatMap { row in Result { () throws(RoomStoreError) in try store.adopt(row, named: name) } })
            }}
        }
    }

    /// Rooms whose asynchronous load has not come back (room thread), with how many loads.
    private var loading: [String: Int] = [:]

    /// Where asynchronous loads read (reads run side by side; SQLite in WAL mode lets them).
    private let readers = DispatchQueue(label: "scrollcast.store.reader", qos: .userInitiated, attributes: .concurrent)

    /// The room's row as the file has it (after writing the room's own queued operations, so it
    /// is never older than the room last was). Any thread.
    nonisolated private static func readRoom(named name: String, database: RoomDatabase, writer: RoomWriter) throws(RoomStoreError) -> RoomRow? {
        if writer.hasUnwritten(room: name) { writer.drain() }
        do {
            return try database.pool.read { db in
                try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT name, sceneName, driverKeyDigest, rowOrder, rowMoveVersion, restingOffset, life, lastUsedAt
                    FROM room WHERE name = ?
                    """), arguments: [name]).map { row in
                    RoomRow(name: row["name"], sceneName: row["sceneName"], driverKeyDigest: row["driverKeyDigest"],
                            rowOrder: row["rowOrder"], rowMoveVersion: row["rowMoveVersion"],
                            restingOffset: row["restingOffset"], life: row["life"], lastUsedAt: row["lastUsedAt"])
                }
            }
        } catch {
            throw RoomStoreError("reading room '\(name)' from \(database.path) failed: \(error)")
        }
    }

    /// What `readRoom` found, made the room's new life (room thread).
    private func adopt(_ row: RoomRow?, named name: String) throws(RoomStoreError) -> StoredRoom? {
        guard let row else { return nil }
        if let ttl = retention.roomTTL, row.lastUsedAt < now().addingTimeInterval(-ttl) {
            // Expired: made afresh, in a life after the old one's.
            lives[name] = row.life
            return nil
        }
        guard let order = RowOrderCoding.decode(row.rowOrder) else {
            throw RoomStoreError("room '\(name)' in \(database.path) has an unreadable row order")
        }
        let life = row.life + 1
        lives[name] = life
        writer.enqueue(.restored(room: name, life: life, at: now()))
        let settings = RoomSettings(name: row.name, sceneName: row.sceneName, driverKeyDigest: row.driverKeyDigest)
        return StoredRoom(settings: settings, rowOrder: order, rowMoveVersion: row.rowMoveVersion,
                          restingOffset: row.restingOffset)
    }

    /// A `room` row, as read on whichever thread read it.
    private struct RoomRow: Sendable {
        var name: String
        var sceneName: String
        var driverKeyDigest: String?
        var rowOrder: String
        var rowMoveVersion: Int
        var restingOffset: Double?
        var life: Int
        var lastUsedAt: Date
    }

    /// Records a new room (or one whose stored state no longer fits its scene, starting afresh).
    public func roomCreated(_ settings: RoomSettings) {
        let life = (lives[settings.name] ?? 0) + 1
        lives[settings.name] = life
        writer.enqueue(.created(settings, life: life, at: now()))
    }

    /// Queues the entry; it is written within `flushInterval`.
    public func append(_ entry: RoomLogEntry, toRoom room: String) {
        writer.enqueue(.log(room: room, life: lives[room] ?? 0, entry: entry))
    }

    /// Writes the move (with everything queued before it) now; `completion` runs on the room
    /// thread once the transaction has committed, or with the error if it could not.
    public func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        // The completion belongs to the room thread; it only travels through the writer queue
        // and is called back on the room thread by the scheduler.
        let onRoomThread = RoomBound(completion)
        let scheduler = scheduler
        let done = RoomWriter.MoveCompletion { result in
            scheduler.execute { RoomActor.assumeIsolated { onRoomThread.value(result) } }
        }
        writer.enqueue(.move(move, at: now(), done: done), urgent: true)
    }

    /// Notes when the room was last used. The room stays in the file: it comes back on its
    /// next join, unless that is more than `retention.roomTTL` later.
    public func roomEvicted(named name: String) {
        lives[name] = nil
        writer.enqueue(.evicted(room: name, at: now()))
    }

    /// False from a failed write until one succeeds again (the writer probes every
    /// `retryInterval` meanwhile).
    public var isAcceptingWrites: Bool { writer.isHealthy }

    /// Stores the room's resting offset (and counts as a use of the room).
    public func checkpoint(_ checkpoint: RoomCheckpoint) {
        writer.enqueue(.checkpoint(checkpoint, at: now()))
    }

    /// Starts a compaction when one is due: at the first call (so at start), then every
    /// `retention.compactionInterval`.
    public func housekeeping() {
        let date = now()
        if let last = lastCompaction, date.timeIntervalSince(last) < retention.compactionInterval { return }
        compact(at: date)
    }

    // MARK: Beyond RoomStore

    /// Writes everything queued and returns once it is committed. Blocks the caller.
    public func flush() {
        writer.drain()
    }

    /// Writes everything queued, then closes the file (its whole log in `roomLog`). Call once
    /// the rooms have stopped.
    public func close() {
        writer.drainAndFold()
        database.close()
    }

    /// Queues a compaction as of `date` (default now): rooms past `retention.roomTTL` that are
    /// not live are deleted with their log, and log entries older than `retention.logWindow`.
    public func compact(at date: Date? = nil) {
        let date = date ?? now()
        lastCompaction = date
        writer.enqueue(.compact(RoomCompaction(at: date, retention: retention, live: Set(lives.keys).union(loading.keys))))
    }

    /// Transactions the writer has committed.
    public var batchCount: Int { writer.batchCount }
    /// Transactions that failed.
    public var failedBatchCount: Int { writer.failedBatchCount }
    /// Log entries dropped because writing was failing.
    public var droppedLogEntryCount: Int { writer.droppedLogEntryCount }

    /// Probes the file now instead of at the next retry (tests).
    func probeNow() { writer.probeNow() }

    /// Room `name`'s log, oldest entry first, every life of it (after writing what is queued).
    public func log(ofRoom name: String) throws(RoomStoreError) -> [StoredLogEntry] {
        writer.drain()
        do {
            return try database.pool.read { db in
                let rows = try RoomLogRows.all(db, room: name)
                return try rows.map { row in try RoomLogCoding.decode(row, room: name, file: nil) }
            }
        } catch let error as RoomStoreError {
            throw error
        } catch {
            throw RoomStoreError("reading the log of room '\(name)' from \(database.path) failed: \(error)")
        }
    }
}

extension SQLiteRoomStore: nonisolated RoomLogSource {
    /// Life `life` (nil: the latest) of room `name`, after writing what is queued, so a live
    /// room's recording holds every frame it has sent.
    nonisolated public func roomLife(named name: String, life: Int?) throws(RoomStoreError) -> RoomLife? {
        writer.drain()
        return try database.roomLife(named: name, life: life)
    }

    /// A reader that drains the queued writes and reads the log in batches on the export's
    /// worker: nothing of it runs on the room thread.
    nonisolated public func latestLifeReader(room name: String) -> RoomLifeReader {
        SQLiteLifeReader(database: database, writer: writer, room: name)
    }
}
