import Dispatch
import Foundation
import GRDB
import ScrollcastServer
import Synchronization

/// The store's one writer: a serial queue that writes queued operations in batches, one
/// transaction per batch, so the room thread never waits for the disk.
///
/// Log entries wait up to `flushInterval` (or until `batchLimit` have gathered) so that a room
/// animating at 60 frames/s costs a transaction every few ms rather than one per frame. A row
/// move is written at once, together with whatever is already queued (the log before it stays
/// before it), and its `done` runs on this queue only after the transaction commits. Batches run
/// in order on one queue, so moves complete in the order they were committed.
final class RoomWriter: Sendable {
    /// One thing to write, in the order the room thread asked for it.
    enum Operation: Sendable {
        case created(RoomSettings, life: Int, at: Date)
        case restored(room: String, life: Int, at: Date)
        case log(room: String, life: Int, entry: RoomLogEntry)
        case move(RowMoveRecord, at: Date, done: MoveCompletion)
        case evicted(room: String, at: Date)

        var room: String {
            switch self {
            case .created(let settings, _, _): settings.name
            case .restored(let room, _, _), .log(let room, _, _), .evicted(let room, _): room
            case .move(let move, _, _): move.room
            }
        }
    }

    /// Called on the writer queue with a move's outcome, after its transaction ended.
    struct MoveCompletion: Sendable {
        let call: @Sendable (Result<Void, RoomStoreError>) -> Void
    }

    private struct State {
        var queued: [Operation] = []
        /// Operations per room queued or being written: `loadRoom` must not read past them.
        var unwritten: [String: Int] = [:]
        var delayedFlushScheduled = false
        var immediateFlushScheduled = false
    }

    private let database: RoomDatabase
    private let queue = DispatchQueue(label: "scrollcast.store.writer")
    private let state = Mutex(State())
    private let flushInterval: DispatchTimeInterval
    private let batchLimit: Int
    private let onFailure: @Sendable (String) -> Void
    private let batches = Atomic<Int>(0)

    /// A writer into `database` gathering log entries for `flushInterval` or `batchLimit`
    /// entries; `onFailure` hears of a batch that could not be written.
    init(database: RoomDatabase, flushInterval: DispatchTimeInterval, batchLimit: Int,
         onFailure: @escaping @Sendable (String) -> Void) {
        self.database = database
        self.flushInterval = flushInterval
        self.batchLimit = max(1, batchLimit)
        self.onFailure = onFailure
    }

    /// Transactions written so far.
    var batchCount: Int { batches.load(ordering: .relaxed) }

    /// Queues `operation`. `urgent` (a row move) starts a batch now; otherwise one starts within
    /// `flushInterval`, or at once if `batchLimit` operations are waiting. Never blocks on I/O.
    func enqueue(_ operation: Operation, urgent: Bool = false) {
        let (now, later) = state.withLock { state -> (Bool, Bool) in
            state.queued.append(operation)
            state.unwritten[operation.room, default: 0] += 1
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

    /// Whether something of `room` is queued or being written.
    func hasUnwritten(room: String) -> Bool {
        state.withLock { $0.unwritten[room] != nil }
    }

    /// Writes everything queued so far and returns once it is committed (or failed). Blocks the
    /// caller: for `loadRoom` of a room with queued writes, and for shutdown.
    func drain() {
        queue.sync { flush() }
    }

    /// Takes everything queued and writes it in one transaction (writer queue only).
    private func flush() {
        let operations = state.withLock { state -> [Operation] in
            state.delayedFlushScheduled = false
            state.immediateFlushScheduled = false
            defer { state.queued.removeAll(keepingCapacity: true) }
            return state.queued
        }
        guard !operations.isEmpty else { return }
        var outcomes: [Result<Void, RoomStoreError>] = []
        do {
            outcomes = try database.pool.write { db in try RoomBatch.write(operations, in: db) }
            batches.add(1, ordering: .relaxed)
        } catch {
            let failure = RoomStoreError("writing \(operations.count) operations to \(database.path) failed: \(error)")
            onFailure(failure.message)
            outcomes = operations.compactMap { if case .move = $0 { .failure(failure) } else { nil } }
        }
        state.withLock { state in
            for operation in operations {
                let room = operation.room
                if let count = state.unwritten[room], count > 1 {
                    state.unwritten[room] = count - 1
                } else {
                    state.unwritten[room] = nil
                }
            }
        }
        var moves = outcomes.makeIterator()
        for case .move(_, _, let done) in operations {
            done.call(moves.next() ?? .failure(RoomStoreError("row move lost")))
        }
    }
}
