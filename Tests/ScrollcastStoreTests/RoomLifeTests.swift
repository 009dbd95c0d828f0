import Foundation
import GRDB
import Testing
import ScrollEngine
import ScrollcastRooms
@testable import ScrollcastStore

/// Lives of a room as recordings need them: how each began (`roomLife`, written by triggers) and
/// its log alone.
@Suite("Room lives")
@RoomActor struct RoomLifeTests {
    static func wheel(_ id: UInt64, at time: Double) -> RoomLogEntry {
        .input(viewer: "v1", event: InputEvent(id: id, time: time, kind: .wheel(dx: 0, dy: 3, mode: .line)))
    }

    @Test func aCreatedLifeStartsFromTheScenesOwnOrderWithItsLog() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "seed-table", driverKeyDigest: nil))
        let entries: [RoomLogEntry] = [Self.wheel(1, at: 10), .frame(sequence: 1, time: 10), .frame(sequence: 2, time: 26.5)]
        for entry in entries { store.append(entry, toRoom: "r") }
        let life = try #require(try store.roomLife(named: "r", life: nil))
        #expect(life == RoomLife(room: "r", life: 1, sceneName: "seed-table", startingRowOrder: [], startingRowMoveVersion: 0,
                                 entries: entries))
        store.close()
    }

    @Test func aRunningStoresQueuedEntriesAreInTheLife() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore(flushInterval: .seconds(60))
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        store.append(.frame(sequence: 1, time: 0), toRoom: "r")
        #expect(try store.roomLife(named: "r", life: nil)?.entries == [.frame(sequence: 1, time: 0)])
        store.close()
    }

    @Test func aRestoredLifeStartsFromTheOrderTheRoomCameBackWithAndHasOnlyItsOwnLog() throws {
        let fixture = StoreFixture()
        let first = try fixture.openStore()
        first.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        first.append(Self.wheel(1, at: 5), toRoom: "r")
        first.append(.frame(sequence: 1, time: 5), toRoom: "r")
        first.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[2, 1, 3], [4]])) { _ in }
        first.commitRowMove(move(in: "r", rowMoveVersion: 2, order: [[3, 2, 1], [4]])) { _ in }
        first.close()

        let second = try fixture.openStore()
        _ = try second.loadRoom(named: "r")
        second.append(.frame(sequence: 1, time: 0), toRoom: "r")
        let latest = try #require(try second.roomLife(named: "r", life: nil))
        #expect(latest == RoomLife(room: "r", life: 2, sceneName: "demo", startingRowOrder: [[3, 2, 1], [4]],
                                   startingRowMoveVersion: 2, entries: [.frame(sequence: 1, time: 0)]))
        let earlier = try #require(try second.roomLife(named: "r", life: 1))
        #expect(earlier.startingRowOrder == [] && earlier.entries == [Self.wheel(1, at: 5), .frame(sequence: 1, time: 5)])
        second.close()
    }

    @Test func aRoomMadeAfreshAfterARestoreThatDidNotFitStartsFromTheScenesOwnOrder() throws {
        let fixture = StoreFixture()
        let first = try fixture.openStore()
        first.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        first.commitRowMove(move(in: "r", rowMoveVersion: 1, order: [[9, 8]])) { _ in }
        first.close()

        // What the registry does when the stored order no longer fits the scene.
        let second = try fixture.openStore()
        _ = try second.loadRoom(named: "r")
        second.roomCreated(RoomSettings(name: "r", sceneName: "seed-table", driverKeyDigest: nil))
        let latest = try #require(try second.roomLife(named: "r", life: nil))
        #expect(latest.life == 3 && latest.sceneName == "seed-table")
        #expect(latest.startingRowOrder == [] && latest.startingRowMoveVersion == 0)
        #expect(try second.roomLife(named: "r", life: 2)?.startingRowOrder == [[9, 8]], "the restore that was given up")
        second.close()
    }

    @Test func unknownRoomsAndLivesAreSaidSo() throws {
        let fixture = StoreFixture()
        let store = try fixture.openStore()
        store.roomCreated(RoomSettings(name: "r", sceneName: "demo", driverKeyDigest: nil))
        #expect(try store.roomLife(named: "nobody", life: nil) == nil)
        #expect(throws: RoomStoreError("room 'r' has one life (1); there is no life 4")) {
            try store.roomLife(named: "r", life: 4)
        }
        store.close()
    }

    /// A file written before v2 has no `roomLife` rows: a room's only life is known to have
    /// been created; a later life's start is not known, and is not guessed.
    @Test func livesThatBeganBeforeTheFileRecordedStartsAreKnownOnlyWhenThereWasOne() throws {
        let fixture = StoreFixture()
        try FileManager.default.createDirectory(atPath: (fixture.path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: fixture.path)
        try RoomSchema.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            for (name, life) in [("once", 1), ("twice", 2)] {
                try db.execute(sql: """
                    INSERT INTO room (name, sceneName, rowOrder, rowMoveVersion, life, createdAt, lastUsedAt)
                    VALUES (?, 'demo', '[[1,0]]', 1, ?, 0, 0)
                    """, arguments: [name, life])
                try db.execute(sql: "INSERT INTO roomLog (room, life, entry, time, sequence) VALUES (?, ?, 'frame', 0, 1)",
                               arguments: [name, life])
            }
        }
        try queue.close()

        let database = try RoomDatabase.open(atPath: fixture.path)
        #expect(try database.roomLife(named: "once", life: nil) == RoomLife(
            room: "once", life: 1, sceneName: "demo", startingRowOrder: [], startingRowMoveVersion: 0,
            entries: [.frame(sequence: 1, time: 0)]))
        #expect {
            try database.roomLife(named: "twice", life: nil)
        } throws: { error in
            (error as? RoomStoreError)?.message.contains("life 2 of room 'twice' began before \(fixture.path) recorded how lives start") == true
        }
        database.close()
    }
}
