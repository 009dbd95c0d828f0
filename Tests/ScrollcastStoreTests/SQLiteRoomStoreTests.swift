import Foundation
import GRDB
import Testing
import ScrollEngine
import ScrollcastRooms
@testable import ScrollcastStore

/// The store on real files: what a room writes comes back after the file is closed and opened
/// again by a new store, as after a restart.
@Suite("SQLite room store")
@RoomActor struct SQLiteRoomStoreTests {
    @Test func settingsComeBackWithTheKeyDigestAndNeverTheKey() throws {
        let fixture = StoreFixture()
        let key = DriverKey.random().hex
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "locked", sceneName: "seed-table", driverKeyDigest: DriverKey.digest(of: key)))
        store.roomCreated(RoomSettings(name: "open", sceneName: "demo", driverKeyDigest: nil))
        store.close()

        let reopened = try fixture.openStore()
        let locked = try #require(try reopened.loadRoom(named: "locked"))
        #expect(locked == StoredRoom(settings: RoomSettings(name: "locked", sceneName: "seed-table",
                                                            driverKeyDigest: DriverKey.digest(of: key)),
                                     rowOrder: [], rowMoveVersion: 0))
        #expect(try reopened.loadRoom(named: "open")?.settings.driverKeyDigest == nil)
        #expect(try reopened.loadRoom(named: "never-made") == nil)
        reopened.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        #expect(bytes.range(of: Data(key.utf8)) == nil, "the key itself is never written")
    }

    @Test func aCommittedMoveComesBackInANewStoreOnTheSameFile() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[2, 1, 3], [4, 5]])) { _ in }
        store.commitRowMove(move(in: "r", rowMoveVersion: 2, order: [[3, 2, 1], [4, 5]])) { _ in }
        store.close()

        let reopened = try fixture.openStore()
        let room = try #require(try reopened.loadRoom(named: "r"))
        #expect(room.rowOrder == [[3, 2, 1], [4, 5]])
        #expect(room.rowMoveVersion == 2)
        reopened.close()
    }

    @Test func completionsComeThroughTheSchedulerAfterTheCommitInCommitOrder() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        // A second connection, as another process would see the file.
        let observer = try DatabaseQueue(path: fixture.path)
        var completed: [(rowMoveVersion: Int, result: Result<Void, RoomStoreError>, storedVersion: Int?)] = []
        for rowMoveVersion in 1...3 {
            store.commitRowMove(move(in: "r", rowMoveVersion: rowMoveVersion, order: [[rowMoveVersion, 9]])) { result in
                let stored = try? observer.read { db in
                    try Int.fetchOne(db, sql: "SELECT rowMoveVersion FROM room WHERE name = 'r'")
                }
                completed.append((rowMoveVersion, result, stored))
            }
        }
        store.commitRowMove(move(in: "no-such-room", rowMoveVersion: 1, order: [[1]])) { result in
            completed.append((-1, result, nil))
        }
        store.flush()
        #expect(completed.isEmpty, "completions run on the room thread (the scheduler), not the writer's")
        fixture.scheduler.runDue()
        #expect(completed.map(\.rowMoveVersion) == [1, 2, 3, -1])
        for entry in completed.prefix(3) {
            #expect((try? entry.result.get()) != nil)
            #expect((entry.storedVersion ?? 0) >= entry.rowMoveVersion, "move \(entry.rowMoveVersion) was committed before its completion")
        }
        #expect(throws: RoomStoreError.self) { try completed[3].result.get() }
        store.close()
    }

    @Test func evictionKeepsTheRoomAndNotesWhenItWasLastUsed() throws {
        let fixture = StoreFixture()
        let clock = SettableDate(Date(timeIntervalSince1970: 1_700_000_000))
        let store = try fixture.openStore(now: { clock.now })
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[2, 1]])) { _ in }
        clock.now = Date(timeIntervalSince1970: 1_700_000_600)
        store.roomEvicted(named: "r")
        store.flush()
        let (created, lastUsed) = try store.database.pool.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT createdAt, lastUsedAt FROM room WHERE name = 'r'"))
            return (row["createdAt"] as Date, row["lastUsedAt"] as Date)
        }
        #expect(created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(lastUsed == Date(timeIntervalSince1970: 1_700_000_600))
        #expect(try store.loadRoom(named: "r")?.rowMoveVersion == 1, "an evicted room comes back with its moves")
        store.close()
    }

    @Test func loadingARoomWithQueuedWritesReadsThemFirst() throws {
        let fixture = StoreFixture()
        // Log entries would wait a minute: only loadRoom's own drain can write them in time.
        let store = try fixture.openStore(flushInterval: .seconds(60))
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.roomEvicted(named: "r")
        #expect(try store.loadRoom(named: "r")?.settings.sceneName == "demo")
        store.close()
    }

    @Test func logEntriesAreWrittenInBatchesNotOneTransactionEach() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore(flushInterval: .milliseconds(50), batchLimit: 500)
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        for sequence in 1...2_000 {
            store.append(.frame(sequence: UInt64(sequence), time: Double(sequence) * 16.7), toRoom: "r")
        }
        store.flush()
        #expect(store.batchCount <= 6, "2,000 entries with batches of 500: \(store.batchCount) transactions")
        #expect(try store.log(ofRoom: "r").count == 2_000)
        store.close()
    }

    @Test func eachLifeOfARoomNumbersItsLog() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.append(.frame(sequence: 1, time: 10), toRoom: "r")
        store.close()
        let reopened = try fixture.openStore()
        _ = try reopened.loadRoom(named: "r")
        reopened.append(.frame(sequence: 1, time: 12), toRoom: "r")
        #expect(try reopened.log(ofRoom: "r") == [StoredLogEntry(life: 1, entry: .frame(sequence: 1, time: 10)),
                                                  StoredLogEntry(life: 2, entry: .frame(sequence: 1, time: 12))])
        reopened.close()
    }
}
