import Foundation
import GRDB
import ScrollEngine
import ScrollcastRooms
import ScrollcastServerTesting
@testable import ScrollcastStore

/// A store on a real file in its own temporary directory, with a manual scheduler standing in
/// for the room thread.
@RoomActor final class StoreFixture {
    let directory = TemporaryDirectory()
    let scheduler = ManualScheduler(clock: ManualRoomClock())
    var path: String { directory.file("data/scrollcast.sqlite") }

    /// A store over a freshly opened database at `path`.
    func openStore(flushInterval: DispatchTimeInterval = .milliseconds(5), batchLimit: Int = 1024,
                   retention: RoomRetention = RoomRetention(), retryInterval: DispatchTimeInterval = .seconds(60),
                   events: EventCollector<String>? = nil,
                   now: @escaping @Sendable () -> Date = { Date() }) throws -> SQLiteRoomStore {
        SQLiteRoomStore(database: try RoomDatabase.open(atPath: path), scheduler: scheduler,
                        flushInterval: flushInterval, batchLimit: batchLimit, retention: retention,
                        retryInterval: retryInterval,
                        onWriteFailure: { events?.append("failed: \($0)") },
                        onRecovery: { events?.append("recovered") },
                        onCompaction: { rooms, entries in events?.append("compacted \(rooms) rooms, \(entries) entries") },
                        now: now)
    }

    /// A second connection to the file, as an operator's sqlite3 shell would be.
    /// Waits up to 5 s for the write lock, like an operator's `sqlite3` shell with `.timeout`:
    /// the store's writer may hold it at any moment (its retry timer writes a probe every
    /// interval while writes fail), and without a timeout the shell's write failed at once with
    /// "database is locked" when it met one (StoreHealthTests, seen once).
    func shell() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

/// A row move of room `room` to `order`, numbered `version`.
func move(in room: String, rowMoveVersion: Int, order: [[Int]]) -> RowMoveRecord {
    RowMoveRecord(room: room, rowID: order[0][0], from: IndexPath(section: 0, row: 1), to: IndexPath(section: 0, row: 0),
                  viewer: "v1", rowMoveVersion: rowMoveVersion, rowOrder: order)
}

/// A wall clock a test sets by hand.
final class SettableDate: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ value: Date) { self.value = value }
    var now: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
