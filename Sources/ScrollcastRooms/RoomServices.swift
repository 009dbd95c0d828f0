/// What rooms are made with: the clocks, the scenes, and the interfaces to the world beyond the
/// room (its store, who owns it, where its messages go). Handed to the registry once, so a
/// durable store or a cluster relay replaces an in-memory one here and nowhere else.
@RoomActor public struct RoomServices {
    /// The monotonic clock rooms measure time with.
    public var clock: RoomClock
    /// The wall clock for frames' `sentAt`.
    public var wallClock: WallClock
    /// Where counts go.
    public var metrics: ServerMetrics
    /// The scenes a room can be made with.
    public var scenes: SceneCatalogue
    /// Where rooms' durable state goes.
    public var store: RoomStore
    /// Which node runs a room.
    public var ownership: RoomOwnership
    /// Where rooms' messages go.
    public var relay: RoomRelay
    /// Where uploaded scenes are kept (beside the rooms: SQLite, or Redis in a cluster).
    public var sceneUploads: SceneUploadStore

    /// Services with the given parts; by default the standard scenes and, for everything that
    /// could live beyond this process, the in-memory single-node implementations.
    public init(clock: RoomClock, wallClock: @escaping WallClock, metrics: ServerMetrics,
                scenes: SceneCatalogue = .standard, store: RoomStore = InMemoryRoomStore(),
                ownership: RoomOwnership = SingleNodeOwnership(), relay: RoomRelay? = nil,
                sceneUploads: SceneUploadStore = InMemorySceneUploadStore()) {
        self.sceneUploads = sceneUploads
        self.clock = clock
        self.wallClock = wallClock
        self.metrics = metrics
        self.scenes = scenes
        self.store = store
        self.ownership = ownership
        self.relay = relay ?? LocalRelay(metrics: metrics)
    }
}
