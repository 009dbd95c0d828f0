@testable import ScrollcastRooms

/// An in-memory store that keeps each room's whole log and how its life began, and hands it out
/// as a `RoomLogSource` (as `SQLiteRoomStore` does), for the recording route.
final class WholeLogStore: RoomStore, @RoomActor RoomLogSource {
    let inner = InMemoryRoomStore(logLimit: 1_000_000)
    private var starts: [String: (sceneName: String, order: [[Int]], rowMoveVersion: Int, keyDigest: String?)] = [:]

    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? {
        let stored = try inner.loadRoom(named: name)
        if let stored { starts[name] = (stored.settings.sceneName, stored.rowOrder, stored.rowMoveVersion, stored.settings.driverKeyDigest) }
        return stored
    }

    func roomCreated(_ settings: RoomSettings) {
        inner.roomCreated(settings)
        starts[settings.name] = (settings.sceneName, [], 0, settings.driverKeyDigest)
    }

    func append(_ entry: RoomLogEntry, toRoom room: String) { inner.append(entry, toRoom: room) }
    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        inner.commitRowMove(move, completion: completion)
    }
    func roomEvicted(named name: String) { inner.roomEvicted(named: name) }

    func roomLife(named name: String, life: Int?) throws(RoomStoreError) -> RoomLife? {
        guard let start = starts[name] else { return nil }
        return RoomLife(room: name, life: 1, sceneName: start.sceneName, startingRowOrder: start.order,
                        startingRowMoveVersion: start.rowMoveVersion, entries: inner.log(ofRoom: name),
                        driverKeyDigest: start.keyDigest)
    }
}
