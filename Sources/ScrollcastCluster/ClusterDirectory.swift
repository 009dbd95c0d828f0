import ScrollcastRooms

/// `RoomDirectory` of a cluster node: every viewer joins its room's link here, which runs the
/// room or reaches the node that does.
final class ClusterDirectory: RoomDirectory {
    private unowned let node: ClusterNode

    init(node: ClusterNode) {
        self.node = node
    }

    func join(_ join: ViewerJoin) -> Result<RoomEndpoint, JoinFailure> {
        // Every node has the same catalogue, so an unknown scene is refused here at once.
        let scene = join.sceneName(in: node.registry.scenes)
        guard node.registry.scenes.contains(scene) else { return .failure(.unknownScene(scene)) }
        let (link, isNew) = node.link(for: join.request.room)
        link.add(join)
        if isNew { link.step(.start) }
        return .success(link)
    }
}
