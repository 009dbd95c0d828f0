import Foundation
import GRDB
import Testing
import ScrollcastRooms
@testable import ScrollcastStore

/// Opening files: a missing directory is made; anything the store does not understand is
/// refused with a message naming the file and the way out, and left as it was.
@Suite("Opening a room database")
@RoomActor struct OpeningTests {
    @Test func aMissingDirectoryIsCreated() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("a/b/c/rooms.sqlite")
        let database = try RoomDatabase.open(atPath: path)
        database.close()
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func anExistingDatabaseOpensAgainWithItsMigrationsApplied() throws {
        let fixture = StoreFixture()
        try RoomDatabase.open(atPath: fixture.path).close()
        let database = try RoomDatabase.open(atPath: fixture.path)
        let applied = try database.pool.read { db in try RoomSchema.migrator.appliedMigrations(db) }
        let mode = try database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(applied == ["v1", "v2-roomLife", "v3-retention", "v4-logRecent", "v5-sceneUploads"])
        #expect(mode == "wal")
        database.close()
    }

    @Test func aFileOfThePreviousSchemaIsBroughtForwardWithItsRooms() throws {
        let fixture = StoreFixture()
        try FileManager.default.createDirectory(atPath: (fixture.path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let old = try DatabasePool(path: fixture.path)
        try RoomSchema.migrator.migrate(old, upTo: "v1")
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO room (name, sceneName, rowOrder, rowMoveVersion, createdAt, lastUsedAt)
                VALUES ('kept', 'demo', '[[2,1]]', 4, ?, ?)
                """, arguments: [Date(), Date()])
        }
        try old.close()
        let store = try fixture.openStore()
        let room = try #require(try store.loadRoom(named: "kept"))
        #expect(room.rowOrder == [[2, 1]] && room.rowMoveVersion == 4)
        #expect(room.restingOffset == nil, "a room from before v2 comes back at the top")
        store.close()
    }

    @Test func aFileOfGarbageIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("scrollcast.sqlite")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: RoomDatabaseError.self) { try RoomDatabase.open(atPath: path) }
        #expect(error.kind == .notAScrollcastDatabase)
        #expect(error.description.hasPrefix("\(path) is not a Scrollcast database ("))
        #expect(error.description.hasSuffix("; move it away or pass --data none"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func aTextFileIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("notes.sqlite")
        try Data(String(repeating: "not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: RoomDatabaseError.self) { try RoomDatabase.open(atPath: path) }
        #expect(error.kind == .notAScrollcastDatabase)
        #expect(error.description.contains(path))
    }

    @Test func aDatabaseFromANewerBuildIsRefused() throws {
        let fixture = StoreFixture()
        try RoomDatabase.open(atPath: fixture.path).close()
        // A newer build's migrator: ours plus one this build has never heard of.
        var newer = RoomSchema.migrator
        newer.registerMigration("v2-room-recordings") { db in
            try db.execute(sql: "ALTER TABLE room ADD COLUMN recording TEXT")
        }
        let queue = try DatabaseQueue(path: fixture.path)
        try newer.migrate(queue)
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))

        let error = try #require(throws: RoomDatabaseError.self) { try RoomDatabase.open(atPath: fixture.path) }
        #expect(error.kind == .newerSchema)
        #expect(error.description.hasPrefix("\(fixture.path) was written by a newer Scrollcast"))
        #expect(error.description.contains("v2-room-recordings"))
        #expect(error.description.contains("--data none"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == before)
    }

    @Test func anotherProgramsDatabaseIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("theirs.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY)") }
        try queue.close()
        let error = try #require(throws: RoomDatabaseError.self) { try RoomDatabase.open(atPath: path) }
        #expect(error.kind == .notAScrollcastDatabase)
        #expect(error.description.contains("invoices"))
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables == ["invoices"], "nothing was added to their file")
    }

    @Test func aDirectoryInThePlaceOfTheFileIsRefused() throws {
        let directory = TemporaryDirectory()
        let error = try #require(throws: RoomDatabaseError.self) { try RoomDatabase.open(atPath: directory.path) }
        #expect(error.kind == .cannotOpen)
        #expect(error.description.contains(directory.path) && error.description.contains("--data none"))
    }
}
