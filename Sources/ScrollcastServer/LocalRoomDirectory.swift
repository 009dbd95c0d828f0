/// `RoomDirectory` for one node: every room lives in this node's registry, made (or restored
/// from the store) on its first join.
public final class LocalRoomDirectory: RoomDirectory {
    private let registry: RoomRegistry

    /// A directory over `registry`'s rooms.
    public init(registry: RoomRegistry) {
        self.registry = registry
    }

    /// Joins the viewer to the live room, else the stored one, else a new one; the room sends
    /// its snapshot at once.
    public func join(_ join: ViewerJoin) -> Result<RoomEndpoint, JoinFailure> {
        let room: Room
        let origin: RoomRegistry.Origin
        do {
            (room, origin) = try registry.roomForJoin(named: join.request.room, lockKey: join.newKey,
                                                      sceneName: join.request.scene)
        } catch {
            return .failure(error)
        }
        room.admit(join, createdHere: origin == .created)
        return .success(room)
    }
}
