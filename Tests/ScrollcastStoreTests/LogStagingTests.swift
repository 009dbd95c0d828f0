import Foundation
import GRDB
import Testing
import ScrollEngine
import ScrollcastRooms
@testable import ScrollcastStore

/// The log staged in `roomLogRecent` and folded into `roomLog` (`RoomLogStaging`): whichever
/// table an entry is in when it is read — after a clean stop, after a crash, across a fold in
/// the middle of an export — a room's log reads back whole, once, in order.
@Suite("Staged room log")
@RoomActor struct LogStagingTests {
    /// Two rooms logging in turn, `count` entries each: inputs (one with an empty viewer id,
    /// which must come back '' and not NULL) and frames.
    func entries(_ count: Int, room: Int) -> [RoomLogEntry] {
        (0..<count).map { index in
            let time = Double(index) * 16.5 + Double(room)
            if index % 3 == 0 { return .frame(sequence: UInt64(index + 1), time: time) }
            let viewer = index == 1 ? "" : "v\(room)"
            return .input(viewer: viewer, event: InputEvent(id: UInt64(index), time: time,
                                                            kind: .pointerMoved(Point(x: 1.5, y: Double(index) + 0.25))))
        }
    }

    func rows(_ table: String, _ fixture: StoreFixture) throws -> Int {
        try fixture.shell().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }

    @Test func aLogLargerThanAFoldReadsBackInOrderFromBothTablesAndAStopFoldsIt() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        // Past one fold, then a few more: some of each room's log is in each table.
        let count = Int(RoomLogStaging.foldRows) / 2 + 700
        let (a, b) = (entries(count + 5, room: 1), entries(count + 5, room: 2))
        store.roomCreated(RoomSettings(name: "a", sceneName: "demo", driverKeyDigest: nil))
        store.roomCreated(RoomSettings(name: "b", sceneName: "demo", driverKeyDigest: nil))
        for index in 0..<count {
            store.append(a[index], toRoom: "a")
            store.append(b[index], toRoom: "b")
        }
        store.flush()
        for index in count..<count + 5 {
            store.append(a[index], toRoom: "a")
            store.append(b[index], toRoom: "b")
        }
        store.flush()
        let staged = try rows("roomLogRecent", fixture)
        #expect(staged >= 10 && staged < Int(RoomLogStaging.foldRows))
        #expect(try rows("roomLog", fixture) + staged == 2 * (count + 5))
        #expect(try store.log(ofRoom: "a").map(\.entry) == a)
        #expect(try store.roomLife(named: "b", life: nil)?.entries == b)

        store.close()
        #expect(try rows("roomLogRecent", fixture) == 0, "a clean stop leaves the whole log in roomLog")
        #expect(try rows("roomLog", fixture) == 2 * (count + 5))
        let reopened = try fixture.openStore()
        #expect(try reopened.log(ofRoom: "a").map(\.entry) == a)
        reopened.close()
    }

    @Test func entriesACrashLeftStagedAreReadAndFoldedAfterTheRestart() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "a", sceneName: "demo", driverKeyDigest: nil))
        let before = entries(50, room: 1)
        for entry in before { store.append(entry, toRoom: "a") }
        store.flush()
        // No close: the process "dies" with its entries committed in the stage.
        #expect(try rows("roomLogRecent", fixture) == 50)

        let restarted = try fixture.openStore()
        #expect(try restarted.log(ofRoom: "a").map(\.entry) == before)
        _ = try #require(try restarted.loadRoom(named: "a"))
        let after = entries(20, room: 3)
        for entry in after { restarted.append(entry, toRoom: "a") }
        restarted.close()
        let final = try fixture.openStore()
        let log = try final.log(ofRoom: "a")
        final.close()
        #expect(log.map(\.entry) == before + after)
        #expect(log.map(\.life) == Array(repeating: 1, count: 50) + Array(repeating: 2, count: 20))
        #expect(try rows("roomLogRecent", fixture) == 0)
    }

    @Test func anExportReadingAcrossAFoldGetsEachEntryOnce() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "a", sceneName: "demo", driverKeyDigest: nil))
        store.roomCreated(RoomSettings(name: "b", sceneName: "demo", driverKeyDigest: nil))
        let logged = entries(3_000, room: 1)
        for entry in logged { store.append(entry, toRoom: "a") }
        let reader = store.latestLifeReader(room: "a")
        _ = try #require(try reader.start())
        var read = try reader.nextEntries(limit: 1_000)
        // The room goes on, and another room's log makes the stage fold between two pages.
        for entry in entries(100, room: 1) { store.append(entry, toRoom: "a") }
        for entry in entries(Int(RoomLogStaging.foldRows), room: 2) { store.append(entry, toRoom: "b") }
        store.flush()
        #expect(try rows("roomLog", fixture) >= Int(RoomLogStaging.foldRows), "a fold ran mid-export")
        while true {
            let page = try reader.nextEntries(limit: 1_000)
            if page.isEmpty { break }
            read += page
        }
        #expect(read == logged, "the export ends where the room was when it began, each entry once")
        store.close()
    }

    @Test func aFileOfTheV3SchemaKeepsItsLogAndLogsAfterIt() throws {
        let fixture = StoreFixture()
        try FileManager.default.createDirectory(atPath: (fixture.path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: fixture.path)
        try RoomSchema.migrator.migrate(old, upTo: "v3-retention")
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO room (name, sceneName, rowOrder, rowMoveVersion, life, createdAt, lastUsedAt)
                VALUES ('kept', 'demo', '[]', 0, 1, ?, ?)
                """, arguments: [Date(), Date()])
            for sequence in 1...3 {
                try db.execute(sql: "INSERT INTO roomLog (room, life, entry, time, sequence) VALUES ('kept', 1, 'frame', ?, ?)",
                               arguments: [Double(sequence) * 16.5, sequence])
            }
        }
        try old.close()

        let store = try fixture.openStore()
        let applied = try store.database.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied.contains("v4-logRecent"))
        #expect(try store.roomLife(named: "kept", life: 1)?.entries.count == 3)
        _ = try #require(try store.loadRoom(named: "kept"))
        store.append(.frame(sequence: 1, time: 0), toRoom: "kept")
        store.flush()
        let ids = try fixture.shell().read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM roomLog UNION ALL SELECT id FROM roomLogRecent ORDER BY 1")
        }
        #expect(ids == [1, 2, 3, 4], "new entries come after the old ones")
        #expect(try store.roomLife(named: "kept", life: 2)?.entries == [.frame(sequence: 1, time: 0)])
        store.close()
    }
}
