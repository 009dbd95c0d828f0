import Foundation
import GRDB
import Testing
import ScrollEngine
import ScrollcastRooms
import ScrollcastServerTesting
@testable import ScrollcastStore

/// The store when the file stops taking writes and when it takes them again. The failure is
/// SQLite's own: triggers that another connection adds make every write of the writer fail, as
/// a full disk would, and dropping them is the disk coming back. (The e2e test
/// `test_durable_failure.py` does it with a real read-only file.)
@Suite("Store health")
@RoomActor struct StoreHealthTests {
    static let failingTables = ["roomLog", "roomLogRecent", "writeProbe"]

    func breakWrites(_ fixture: StoreFixture) throws {
        try fixture.shell().write { db in
            for table in Self.failingTables {
                try db.execute(sql: "CREATE TRIGGER fail_\(table) BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
            }
            try db.execute(sql: "CREATE TRIGGER fail_room BEFORE UPDATE ON room BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
        }
    }

    func repairWrites(_ fixture: StoreFixture) throws {
        try fixture.shell().write { db in
            for table in Self.failingTables + ["room"] { try db.execute(sql: "DROP TRIGGER fail_\(table)") }
        }
    }

    @Test func aFailedWriteStopsAcceptingWritesUntilAProbeCommits() throws {
        let fixture = StoreFixture()
        let events = EventCollector<String>()
        let store = try fixture.openStore(events: events)
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.flush()
        #expect(store.isAcceptingWrites)

        try breakWrites(fixture)
        store.append(.frame(sequence: 1, time: 0), toRoom: "r")
        store.flush()
        #expect(!store.isAcceptingWrites)
        #expect(events.all.count == 1 && events.all[0].contains("database or disk is full"), "\(events.all)")

        // While failing: log entries are dropped without a write, moves fail, the room's state
        // (its resting offset) waits for the retry.
        let failedSoFar = store.failedBatchCount
        for sequence in 2...100 { store.append(.frame(sequence: UInt64(sequence), time: 0), toRoom: "r") }
        store.flush()
        #expect(store.failedBatchCount == failedSoFar, "no transaction is tried for entries that would be dropped")
        #expect(store.droppedLogEntryCount == 100)
        var moved: Result<Void, RoomStoreError>?
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[2, 1]])) { moved = $0 }
        store.checkpoint(RoomCheckpoint(room: "r", restingOffset: 640))
        store.flush()
        fixture.scheduler.runDue()
        #expect(throws: RoomStoreError.self) { try moved?.get() }
        store.probeNow()
        #expect(!store.isAcceptingWrites, "still failing: the probe could not write either")
        #expect(events.all.count == 1, "one log line per outage, not one per failed write")

        try repairWrites(fixture)
        store.probeNow()
        #expect(store.isAcceptingWrites)
        #expect(events.all.last == "recovered")
        store.roomEvicted(named: "r")
        let room = try #require(try store.loadRoom(named: "r"))
        #expect(room.restingOffset == 640, "what waited was written by the probe")
        #expect(room.rowMoveVersion == 0, "the failed move was not")
        #expect(try store.log(ofRoom: "r").isEmpty, "the log has a gap where writes failed")
        var next: Result<Void, RoomStoreError>?
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[2, 1]])) { next = $0 }
        store.flush()
        fixture.scheduler.runDue()
        #expect((try? next?.get()) != nil)
        store.close()
    }

    @Test func theRetryTimerFindsTheRecoveryByItself() throws {
        let fixture = StoreFixture()
        let events = EventCollector<String>()
        let store = try fixture.openStore(retryInterval: .milliseconds(20), events: events)
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.flush()
        try breakWrites(fixture)
        store.append(.frame(sequence: 1, time: 0), toRoom: "r")
        store.flush()
        #expect(!store.isAcceptingWrites)
        try repairWrites(fixture)
        // Waits for the writer's own timer (a condition, bounded), not for a guessed time.
        #expect(waitUntil { store.isAcceptingWrites })
        #expect(events.all.last == "recovered")
        store.close()
    }

    @Test func aMoveIsKeptOnlyOnTopOfTheOneBeforeIt() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        var results: [Int: Bool] = [:]
        for version in [1, 3, 2] {
            store.commitRowMove(move(in: "r", rowMoveVersion: version, order: [[version, 0]])) { results[version] = (try? $0.get()) != nil }
        }
        store.flush()
        fixture.scheduler.runDue()
        #expect(results == [1: true, 3: false, 2: true])
        let room = try #require(try store.loadRoom(named: "r"))
        #expect(room.rowMoveVersion == 2 && room.rowOrder == [[2, 0]])
        store.close()
    }
}
