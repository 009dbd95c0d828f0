import GRDB
import ScrollcastRooms

extension RoomDatabase {
    /// Life `life` (nil: the latest) of room `name` as the file has it — its scene, the row
    /// order and move version it started with (`roomLife`) and its log — read in one
    /// transaction; nil when the file has no room of that name. Entries still queued in a
    /// running store's writer are not here: `SQLiteRoomStore.roomLife` drains them first.
    public func roomLife(named name: String, life: Int?) throws(RoomStoreError) -> RoomLife? {
        do {
            return try pool.read { db -> RoomLife? in
                guard let start = try lifeStart(db, room: name, life: life) else { return nil }
                let chosen = start.life
                let rows = try RoomLogRows.fetch(db, room: name, life: chosen)
                let entries = try rows.map { row in try RoomLogCoding.decode(row, room: name, file: path).entry }
                return RoomLife(room: name, life: chosen, sceneName: start.sceneName, startingRowOrder: start.startingRowOrder,
                                startingRowMoveVersion: start.startingRowMoveVersion, entries: entries,
                                driverKeyDigest: start.driverKeyDigest)
            }
        } catch let error as RoomStoreError {
            throw error
        } catch {
            throw RoomStoreError("reading room '\(name)' from \(path) failed: \(error)")
        }
    }

    /// How life `life` (nil: the latest) of room `name` began, read in `db`'s transaction; nil
    /// when the file has no room of that name.
    func lifeStart(_ db: Database, room name: String, life: Int?) throws -> RoomLifeStart? {
        guard let room = try Row.fetchOne(db, sql: "SELECT sceneName, life, driverKeyDigest FROM room WHERE name = ?", arguments: [name]) else {
            return nil
        }
        let latest: Int = room["life"]
        let chosen = life ?? latest
        let start = try Row.fetchOne(db, sql: """
            SELECT sceneName, rowOrder, rowMoveVersion FROM roomLife WHERE room = ? AND life = ?
            """, arguments: [name, chosen])
        let sceneName: String, order: [[Int]], rowMoveVersion: Int
        if let start {
            guard let decoded = RowOrderCoding.decode(start["rowOrder"]) else {
                throw RoomStoreError("life \(chosen) of room '\(name)' in \(path) has an unreadable starting row order")
            }
            (sceneName, order, rowMoveVersion) = (start["sceneName"], decoded, start["rowMoveVersion"])
        } else if chosen == 1, latest == 1 {
            // A room never made again since the file recorded lives' starts: its only
            // life was created, with the room's scene in its own order.
            (sceneName, order, rowMoveVersion) = (room["sceneName"], [], 0)
        } else if !(1...latest).contains(chosen) {
            throw RoomStoreError("room '\(name)' has \(latest == 1 ? "one life (1)" : "lives 1…\(latest)"); there is no life \(chosen)")
        } else {
            throw RoomStoreError("life \(chosen) of room '\(name)' began before \(path) recorded how lives start (an older build wrote it): its starting row order is unknown")
        }
        // The lock is the room's now, whichever life is read: a recording of any life is as
        // private as the room.
        return RoomLifeStart(room: name, life: chosen, sceneName: sceneName, startingRowOrder: order,
                             startingRowMoveVersion: rowMoveVersion, driverKeyDigest: room["driverKeyDigest"])
    }
}
