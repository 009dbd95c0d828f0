import Dispatch
import Foundation
import GRDB
import ScrollcastRooms
import Synchronization

/// The store's one writer: a serial queue that writes queued operations in batches, one
/// transaction per batch, so the room thread never waits for the disk.
///
/// Log entries wait up to `flushInterval` (or until `batchLimit` have gathered) so that a room
/// animating at 60 frames/s costs a transaction every few ms rather than one per frame. A row
/// move is written at once, together with whatever is already queued (the log before it stays
/// before it), and its `done` runs on this queue only after the transaction commits. Batches run
/// in order on one queue, so moves complete in the order they were committed.
///
/// A batch that fails (disk full, file made read-only) rolls back whole. The writer then says
/// it is failing (`isHealthy` false, `onFailure` once) until a later transaction commits: its
/// row moves fail (their rooms take them back), its log entries are dropped and so are those
/// queued while it fails (a failing disk must not fill memory; the log gets a gap), and the
/// rooms' own state (created, restored, evicted, checkpoints) is kept and tried again. Every
/// `retryInterval` a probe transaction writes that state and one small row: when it commits,
/// the writer is healthy again (`onRecovery`).
final class RoomWriter: Sendable {
    /// One thing to write, in the order the room thread asked for it.
    enum Operation: Sendable {
        case created(RoomSettings, life: Int, at: Date)
        case restored(room: String, life: Int, at: Date)
        case log(room: String, life: Int, entry: RoomLogEntry)
        case move(RowMoveRecord, at: Date, done: MoveCompletion)
        case evicted(room: String, at: Date)
        case checkpoint(RoomCheckpoint, at: Date)
        case compact(RoomCompaction)

        /// The room whose `room` row it writes: nil for log entries (they write the log alone)
        /// and compactions.
        var roomRow: String? {
            switch self {
            case .created(let settings, _, _): settings.name
            case .restored(let room, _, _), .evicted(let room, _): room
            case .move(let move, _, _): move.room
            case .checkpoint(let checkpoint, _): checkpoint.room
            case .log, .compact: nil
            }
        }

        /// Whether a failed batch keeps it for the next try: the rooms' own state does; log
        /// entries do not (see the type's comment), moves fail, and compaction waits for the
        /// next housekeeping.
        var isKeptForRetry: Bool {
            switch self {
            case .created, .restored, .evicted, .checkpoint: true
            case .log, .move, .compact: false
            }
        }
    }

    /// Called on the writer queue with a move's outcome, after its transaction ended.
    struct MoveCompletion: Sendable {
        let call: @Sendable (Result<Void, RoomStoreError>) -> Void
    }

    private struct State {
        var queued: [Operation] = []
        /// Operations per room that write its `room` row, queued or being written: `loadRoom`,
        /// which reads that row alone, must not read past them. Log entries are not counted:
        /// no row `loadRoom` reads depends on them, and counting them cost two dictionary
        /// updates per entry (one on the room thread); the log's readers drain first anyway.
        var unwritten: [String: Int] = [:]
        var delayedFlushScheduled = false
        var immediateFlushScheduled = false
        var probeScheduled = false
    }

    private let database: RoomDatabase
    private let queue = DispatchQueue(label: "scrollcast.store.writer")
    private let state = Mutex(State())
    private let flushInterval: DispatchTimeInterval
    private let retryInterval: DispatchTimeInterval
    private let batchLimit: Int
    private let now: @Sendable () -> Date
    private let onFailure: @Sendable (String) -> Void
    private let onRecovery: @Sendable () -> Void
    private let onCompaction: @Sendable (RoomCompaction.Outcome) -> Void
    private let batches = Atomic<Int>(0)
    private let failedBatches = Atomic<Int>(0)
    private let droppedLogEntries = Atomic<Int>(0)
    private let healthy = Atomic<Bool>(true)

    /// A writer into `database` gathering log entries for `flushInterval` or `batchLimit`
    /// entries. `onFailure` hears (once, with the error) that writing started failing, and
    /// `onRecovery` that it works again; while failing, a probe runs every `retryInterval`.
    /// `onCompaction` hears what each compaction removed. `now` stamps the probe.
    init(database: RoomDatabase, flushInterval: DispatchTimeInterval, batchLimit: Int,
         retryInterval: DispatchTimeInterval = .seconds(1), now: @escaping @Sendable () -> Date = { Date() },
         onFailure: @escaping @Sendable (String) -> Void,
         onRecovery: @escaping @Sendable () -> Void = {},
         onCompaction: @escaping @Sendable (RoomCompaction.Outcome) -> Void = { _ in }) {
        self.database = database
        self.flushInterval = flushInterval
        self.retryInterval = retryInterval
        self.batchLimit = max(1, batchLimit)
        self.now = now
        self.onFailure = onFailure
        self.onRecovery = onRecovery
        self.onCompaction = onCompaction
    }

    /// Transactions written so far.
    var batchCount: Int { batches.load(ordering: .relaxed) }
    /// Transactions that failed so far (probes included).
    var failedBatchCount: Int { failedBatches.load(ordering: .relaxed) }
    /// Log entries dropped because writing was failing.
    var droppedLogEntryCount: Int { droppedLogEntries.load(ordering: .relaxed) }
    /// False from a failed transaction until one commits again.
    var isHealthy: Bool { healthy.load(ordering: .relaxed) }

    /// Queues `operation`. `urgent` (a row move) starts a batch now; otherwise one starts within
    /// `flushInterval`, or at once if `batchLimit` operations are waiting. Never blocks on I/O.
    /// A log entry queued while writing fails is dropped at once.
    func enqueue(_ operation: Operation, urgent: Bool = false) {
        if case .log = operation, !isHealthy {
            droppedLogEntries.add(1, ordering: .relaxed)
            return
        }
        let (now, later) = state.withLock { state -> (Bool, Bool) in
            state.queued.append(operation)
            if let room = operation.roomRow { state.unwritten[room, default: 0] += 1 }
            var now = false, later = false
            if urgent || state.queued.count >= batchLimit {
                if !state.immediateFlushScheduled {
                    state.immediateFlushScheduled = true
                    now = true
                }
            } else if !state.delayedFlushScheduled {
                state.delayedFlushScheduled = true
                later = true
            }
            return (now, later)
        }
        if now { queue.async { self.flush() } }
        if later { queue.asyncAfter(deadline: .now() + flushInterval) { self.flush() } }
    }

    /// Whether something that writes `room`'s row is queued or being written.
    func hasUnwritten(room: String) -> Bool {
        state.withLock { $0.unwritten[room] != nil }
    }

    /// Writes everything queued so far and returns once it is committed (or failed). Blocks the
    /// caller: for `loadRoom` of a room with queued writes, and for shutdown.
    func drain() {
        queue.sync { flush() }
    }

    /// `drain`, then folds the recent log into `roomLog` (`RoomLogStaging`), for shutdown: a
    /// stopped server leaves its whole log in `roomLog`, as an operator's `sqlite3` shell
    /// expects. Readers read both tables, so a fold that fails (or a SIGKILL) loses nothing.
    func drainAndFold() {
        queue.sync {
            flush()
            guard isHealthy else { return }
            try? database.pool.write { db in try RoomLogStaging.fold(in: db) }
        }
    }

    /// Runs a probe now, as the retry timer would (tests).
    func probeNow() {
        queue.sync { probe() }
    }

    /// Takes everything queued and writes it in one transaction (writer queue only); a probe
    /// also rewrites the probe row, so it writes even with nothing queued.
    private func flush(probing: Bool = false) {
        let operations = state.withLock { state -> [Operation] in
            state.delayedFlushScheduled = false
            state.immediateFlushScheduled = false
            defer { state.queued.removeAll(keepingCapacity: true) }
            return state.queued
        }
        guard !operations.isEmpty || probing else { return }
        var outcome = RoomBatch.Outcome()
        var kept: [Operation] = []
        do {
            let probeTime = probing ? now() : nil
            outcome = try database.pool.write { db in
                let outcome = try RoomBatch.write(operations, in: db)
                if let probeTime { try RoomBatch.probe(at: probeTime, in: db) }
                return outcome
            }
            batches.add(1, ordering: .relaxed)
            if !healthy.exchange(true, ordering: .relaxed) { onRecovery() }
        } catch {
            failedBatches.add(1, ordering: .relaxed)
            let failure = RoomStoreError("writing \(operations.count) operations to \(database.path) failed: \(error)")
            if healthy.exchange(false, ordering: .relaxed) { onFailure(failure.message) }
            outcome.moves = operations.compactMap { if case .move = $0 { .failure(failure) } else { nil } }
            kept = Self.coalesced(operations.filter(\.isKeptForRetry))
            let dropped = operations.reduce(0) { count, operation in if case .log = operation { count + 1 } else { count } }
            droppedLogEntries.add(dropped, ordering: .relaxed)
            scheduleProbe()
        }
        state.withLock { state in
            // Kept operations go back first, before anything queued meanwhile, and stay counted
            // as unwritten; everything else is done with.
            state.queued.insert(contentsOf: kept, at: 0)
            for operation in operations {
                guard let room = operation.roomRow else { continue }
                if let count = state.unwritten[room], count > 1 {
                    state.unwritten[room] = count - 1
                } else {
                    state.unwritten[room] = nil
                }
            }
            for case let room? in kept.map(\.roomRow) { state.unwritten[room, default: 0] += 1 }
        }
        var moves = outcome.moves.makeIterator()
        for case .move(_, _, let done) in operations {
            done.call(moves.next() ?? .failure(RoomStoreError("row move lost")))
        }
        for compaction in outcome.compactions { onCompaction(compaction) }
        if let more = outcome.moreCompaction { enqueue(.compact(more)) }
    }

    /// While writing fails: tries again every `retryInterval` until a transaction commits.
    private func scheduleProbe() {
        let schedule = state.withLock { state -> Bool in
            defer { state.probeScheduled = true }
            return !state.probeScheduled
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + retryInterval) { self.probe() }
    }

    private func probe() {
        state.withLock { $0.probeScheduled = false }
        guard !isHealthy else { return }
        flush(probing: true)
    }

    /// Operations kept for a retry, with only the latest checkpoint of each room.
    private static func coalesced(_ operations: [Operation]) -> [Operation] {
        var latestCheckpoint: [String: Int] = [:]
        for (index, operation) in operations.enumerated() {
            if case .checkpoint(let checkpoint, _) = operation { latestCheckpoint[checkpoint.room] = index }
        }
        return operations.enumerated().compactMap { index, operation in
            if case .checkpoint(let checkpoint, _) = operation, latestCheckpoint[checkpoint.room] != index { return nil }
            return operation
        }
    }
}
