import Foundation
import GRDB
import Testing
import ScrollEngine
import ScrollcastRooms
import ScrollcastServerTesting
@testable import ScrollcastStore

/// What the file keeps and for how long, on a clock the tests set: rooms unused past their time
/// to live go, log entries older than the window go, and rooms restore from their checkpoint
/// (row order, resting offset) without their log.
@Suite("Retention and checkpoints")
@RoomActor struct RetentionTests {
    nonisolated static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let hour: TimeInterval = 3_600
    static let day: TimeInterval = 86_400

    func count(_ sql: String, in fixture: StoreFixture) throws -> Int {
        try fixture.shell().read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    func frames(_ count: Int, from first: Int = 1) -> [RoomLogEntry] {
        (first..<first + count).map { .frame(sequence: UInt64($0), time: Double($0) * 16.7) }
    }

    @Test func roomsUnusedPastTheirTTLAreRemovedAtStartWithTheirLog() throws {
        let fixture = StoreFixture()
        let clock = SettableDate(Self.start)
        let store = try fixture.openStore(now: { clock.now })
        store.roomCreated(RoomSettings(name: "old", sceneName: "demo", driverKeyDigest: nil))
        store.append(.frame(sequence: 1, time: 0), toRoom: "old")
        store.roomEvicted(named: "old")
        clock.now = Self.start.addingTimeInterval(6 * Self.day)
        store.roomCreated(RoomSettings(name: "recent", sceneName: "demo", driverKeyDigest: nil))
        store.append(.frame(sequence: 1, time: 0), toRoom: "recent")
        store.roomEvicted(named: "recent")
        store.close()

        // A restart a week and an hour after "old" was last used.
        clock.now = Self.start.addingTimeInterval(7 * Self.day + Self.hour)
        let events = EventCollector<String>()
        let reopened = try fixture.openStore(events: events, now: { clock.now })
        reopened.housekeeping()
        reopened.flush()
        #expect(try count("SELECT count(*) FROM room WHERE name = 'old'", in: fixture) == 0)
        #expect(try count("SELECT count(*) FROM roomLog WHERE room = 'old'", in: fixture) == 0)
        #expect(try count("SELECT count(*) FROM roomLife WHERE room = 'old'", in: fixture) == 0)
        #expect(try count("SELECT count(*) FROM room WHERE name = 'recent'", in: fixture) == 1)
        #expect(try count("SELECT count(*) FROM roomLife WHERE room = 'recent'", in: fixture) == 1)
        #expect(try count("SELECT count(*) FROM roomLog WHERE room = 'recent'", in: fixture) == 1)
        #expect(events.all == ["compacted 1 rooms, 1 entries"])
        #expect(try reopened.loadRoom(named: "old") == nil)
        #expect(try reopened.loadRoom(named: "recent") != nil)
        reopened.close()
    }

    @Test func compactionRunsAtStartThenOncePerInterval() throws {
        let fixture = StoreFixture()
        let clock = SettableDate(Self.start)
        let events = EventCollector<String>()
        let store = try fixture.openStore(retention: RoomRetention(compactionInterval: 300), events: events, now: { clock.now })
        for second in stride(from: 0.0, through: 900, by: 1) {
            clock.now = Self.start.addingTimeInterval(second)
            store.housekeeping()
        }
        store.flush()
        #expect(events.all.count == 4, "at 0, 300, 600 and 900 s: \(events.all)")
        store.close()
    }

    @Test func aRoomPastItsTTLIsTreatedAsNewEvenBeforeItIsRemoved() throws {
        let fixture = StoreFixture()
        let clock = SettableDate(Self.start)
        let store = try fixture.openStore(now: { clock.now })
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[2, 1]])) { _ in }
        store.roomEvicted(named: "r")
        store.flush()
        clock.now = Self.start.addingTimeInterval(8 * Self.day)
        #expect(try store.loadRoom(named: "r") == nil)
        // Made again, it starts afresh in a later life, its moves numbered from 1.
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.append(.frame(sequence: 1, time: 0), toRoom: "r")
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[1, 2]])) { _ in }
        store.roomEvicted(named: "r")
        store.flush()
        #expect(try store.loadRoom(named: "r")?.rowMoveVersion == 1)
        #expect(try store.log(ofRoom: "r").map(\.life) == [2])
        store.close()
    }

    @Test func aLiveRoomIsNeverRemovedHoweverLongAgoItWasLastUsed() throws {
        let fixture = StoreFixture()
        let clock = SettableDate(Self.start)
        let store = try fixture.openStore(now: { clock.now })
        store.roomCreated(RoomSettings(name: "busy", sceneName: "demo", driverKeyDigest: nil))
        clock.now = Self.start.addingTimeInterval(30 * Self.day)
        store.compact()
        store.flush()
        #expect(try count("SELECT count(*) FROM room WHERE name = 'busy'", in: fixture) == 1, "still in memory: kept")
        store.roomEvicted(named: "busy")  // last used now
        clock.now = Self.start.addingTimeInterval(36 * Self.day)
        store.compact()
        store.flush()
        #expect(try count("SELECT count(*) FROM room", in: fixture) == 1, "six days after its eviction: kept")
        clock.now = Self.start.addingTimeInterval(38 * Self.day)
        store.compact()
        store.flush()
        #expect(try count("SELECT count(*) FROM room", in: fixture) == 0, "eight days after: removed")
        store.close()
    }

    @Test func logOlderThanTheWindowIsDeletedAndTheCheckpointStillRestoresOrderAndOffset() throws {
        let fixture = StoreFixture()
        let clock = SettableDate(Self.start)
        let store = try fixture.openStore(now: { clock.now })
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[3, 1, 2]])) { _ in }
        store.checkpoint(RoomCheckpoint(room: "r", restingOffset: 812.5))
        for entry in frames(100) { store.append(entry, toRoom: "r") }
        store.flush()
        store.compact()  // marks: the first 100 entries were written by `start`
        clock.now = Self.start.addingTimeInterval(2 * Self.hour)
        for entry in frames(50, from: 101) { store.append(entry, toRoom: "r") }
        store.flush()
        store.compact()  // the next 50 by start + 2 h
        #expect(try store.log(ofRoom: "r").count == 150)

        clock.now = Self.start.addingTimeInterval(Self.day + Self.hour)
        store.compact()
        store.flush()
        #expect(try store.log(ofRoom: "r").map(\.entry) == frames(50, from: 101), "older than 24 h: gone; the rest kept")
        clock.now = Self.start.addingTimeInterval(Self.day + 3 * Self.hour)
        store.compact()
        store.flush()
        #expect(try store.log(ofRoom: "r").isEmpty)
        store.roomEvicted(named: "r")
        store.close()

        let reopened = try fixture.openStore(now: { clock.now })
        let room = try #require(try reopened.loadRoom(named: "r"))
        #expect(room.rowOrder == [[3, 1, 2]] && room.rowMoveVersion == 1 && room.restingOffset == 812.5)
        reopened.close()
    }

    @Test func aLargeLogIsDeletedAChunkAtATime() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore(now: { Self.start })
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        for entry in frames(1_050) { store.append(entry, toRoom: "r") }
        store.flush()
        let pool = store.database.pool
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO logMark (logID, at) SELECT max(id), ? FROM (SELECT id FROM roomLog UNION ALL SELECT id FROM roomLogRecent)
                """, arguments: [Self.start])
        }
        var compaction = RoomCompaction(at: Self.start.addingTimeInterval(2 * Self.day), retention: RoomRetention(),
                                        live: ["r"], chunk: 500)
        var transactions = 0
        var deleted = 0
        while true {
            let (outcome, more) = try pool.write { db in try compaction.run(in: db) }
            transactions += 1
            deleted += outcome.deletedLogEntries
            guard let more else { break }
            compaction = more
        }
        #expect(transactions == 3 && deleted == 1_050)
        #expect(try count("SELECT count(*) FROM logMark", in: fixture) == 0)
        store.close()
    }

    @Test func restoringARoomWithAHundredThousandLoggedInputsReadsNoLog() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "week", sceneName: "demo", driverKeyDigest: nil))
        store.commitRowMove(move(in: "week", rowMoveVersion: 1, order: [[5, 4, 3, 2, 1]])) { _ in }
        var time = 0.0
        for index in 0..<100_000 {
            time += 16.7
            let kind: InputKind = index % 2 == 0 ? .pointerMoved(Point(x: 100, y: Double(index % 700))) : .wheel(dx: 0, dy: 3, mode: .pixel)
            store.append(.input(viewer: "v1", event: InputEvent(id: UInt64(index + 1), time: time, kind: kind)), toRoom: "week")
        }
        store.checkpoint(RoomCheckpoint(room: "week", restingOffset: 4_321))
        store.roomEvicted(named: "week")
        store.close()
        #expect(try count("SELECT count(*) FROM roomLog WHERE room = 'week'", in: fixture) == 100_000)

        let reopened = try fixture.openStore()
        let started = DispatchTime.now().uptimeNanoseconds
        let room = try #require(try reopened.loadRoom(named: "week"))
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        print("restoring a room with 100,000 logged inputs took \(String(format: "%.3f", elapsed)) ms")
        #expect(room.rowOrder == [[5, 4, 3, 2, 1]] && room.restingOffset == 4_321)
        reopened.roomEvicted(named: "week")
        reopened.close()

        // The proof that it never reads the log: with the log table gone, it restores the same.
        try fixture.shell().write { db in try db.execute(sql: "DROP TABLE roomLog") }
        let withoutLog = try fixture.openStore()
        let again = try #require(try withoutLog.loadRoom(named: "week"))
        #expect(again.rowOrder == room.rowOrder && again.rowMoveVersion == 1 && again.restingOffset == 4_321)
        withoutLog.database.close()
    }
}
