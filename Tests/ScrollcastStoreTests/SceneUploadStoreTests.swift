import Foundation
import GRDB
import Testing
import ScrollcastRooms
@testable import ScrollcastStore

/// Uploaded scenes in the room database: what is saved comes back whole after the file is
/// closed and opened again, and a file of the previous schema gains the tables.
@Suite("Uploaded scenes in SQLite")
@RoomActor struct SceneUploadStoreTests {
    let upload = StoredSceneUpload(name: "u-0123456789abcdef01234567", fileName: "mine.json", scene: Array("{}".utf8),
                                   images: ["a.png": [0x89, 0x50, 0x00, 0xFF], "b.webp": Array(repeating: 7, count: 70_000)])

    @Test func anUploadComesBackWholeAfterTheFileIsOpenedAgain() throws {
        let fixture = StoreFixture()
        let first = try RoomDatabase.open(atPath: fixture.path)
        try SQLiteSceneUploadStore(database: first).saveUpload(upload)
        // Saving the same upload again keeps one copy.
        try SQLiteSceneUploadStore(database: first).saveUpload(upload)
        first.close()
        let again = try RoomDatabase.open(atPath: fixture.path)
        #expect(try SQLiteSceneUploadStore(database: again).loadUploads() == [upload])
        again.close()
    }

    @Test func aFileOfTheVersionBeforeUploadsGainsTheirTables() throws {
        let fixture = StoreFixture()
        try FileManager.default.createDirectory(atPath: (fixture.path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let old = try DatabasePool(path: fixture.path)
        try RoomSchema.migrator.migrate(old, upTo: "v4-logRecent")
        #expect(try old.read { db in try db.tableExists("sceneUpload") } == false)
        try old.close()
        let database = try RoomDatabase.open(atPath: fixture.path)
        let store = SQLiteSceneUploadStore(database: database)
        #expect(try store.loadUploads().isEmpty)
        try store.saveUpload(upload)
        #expect(try store.loadUploads().map(\.name) == [upload.name])
        database.close()
    }
}
