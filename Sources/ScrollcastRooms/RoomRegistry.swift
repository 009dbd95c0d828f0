import ScrollEngine

/// The live rooms by name: makes a room on its first join (restoring it from the store when the
/// store has it), keeps an empty one for a grace period, and ticks the rooms that animate. It
/// owns the frame timer: each room says when its deadline may have moved, and the registry
/// moves the timer earlier when it must, so no caller has to.
@RoomActor public final class RoomRegistry {
    private let limits: ServerLimits
    private let services: RoomServices
    private var rooms: [String: Room] = [:]
    private var deadlines = RoomDeadlines()
    private var frameTimer: FrameTimer
    /// While `tick` runs, the rooms' reports only mark them: the timer is set once, after.
    private var isTicking = false
    /// Rooms whose deadline is within this of a tick's time are ticked by it: timers fire on a
    /// whole-ms grid, so rooms due in the same millisecond share one wake-up (each room's own
    /// `FramePacer.timerSlack` still decides whether its frame is due).
    static let tickWindow = 1.0

    /// A registry making rooms from `services`, its frame timer on `scheduler`.
    public init(limits: ServerLimits, services: RoomServices, scheduler: RoomScheduler) {
        self.limits = limits
        self.services = services
        self.frameTimer = FrameTimer(scheduler: scheduler, clock: services.clock)
    }

    /// How `roomForJoin` found the room.
    public enum Origin: Sendable, Hashable {
        /// It was live.
        case live
        /// This join made it.
        case created
        /// This join brought it back from the store.
        case restored
    }

    /// Most live rooms.
    public var maxRooms: Int { limits.maxRooms }

    /// Number of live rooms.
    public var count: Int { rooms.count }

    /// The scenes rooms are made with.
    public var scenes: SceneCatalogue { services.scenes }

    /// The room called `name`, if it lives.
    public func room(named name: String) -> Room? { rooms[name] }

    /// The room called `name`: the live one; else the stored one, restored with its scene, row
    /// order, lock and resting offset; else a new one showing scene `sceneName` (the catalogue's
    /// default when nil), locked with `lockKey` if given. A live or restored room keeps its own
    /// scene and lock whatever the join asks. `completion` runs on the room thread: at once for a
    /// live room or a store that loads at once; else when the store's read comes back, the rooms
    /// running meanwhile. Joins of a room being loaded wait on that one load; the first join's
    /// scene and lock make the room if the store has none, and only that join gets `.created`.
    public func roomForJoin(named name: String, lockKey: String?, sceneName: String? = nil,
                            completion: @escaping (Result<(room: Room, origin: Origin), JoinFailure>) -> Void) {
        // A name the catalogue lacks is an error even for a live room: the client asked for
        // something that does not exist, whichever room it joins.
        let requestedScene = sceneName ?? services.scenes.defaultName
        guard services.scenes.contains(requestedScene) else { return completion(.failure(.unknownScene(requestedScene))) }
        if let room = rooms[name] { return completion(.success((room, .live))) }
        if loads[name] != nil {
            loads[name]?.append { result in completion(result.map { ($0.room, .live) }) }
            return
        }
        guard rooms.count + loads.count < limits.maxRooms else { return completion(.failure(.tooManyRooms(limit: limits.maxRooms))) }
        loads[name] = [completion]
        services.store.loadRoom(named: name) { [self] stored in
            let waiting = loads.removeValue(forKey: name) ?? []
            let made = Result { () throws(JoinFailure) in
                try makeLiveRoom(named: name, stored: stored, lockKey: lockKey, sceneName: requestedScene)
            }
            for (index, completion) in waiting.enumerated() {
                completion(index == 0 ? made : made.map { ($0.room, $0.origin == .created ? .live : $0.origin) })
            }
        }
    }

    /// Rooms whose store read has not come back yet, with the joins waiting for each.
    private var loads: [String: [(Result<(room: Room, origin: Origin), JoinFailure>) -> Void]] = [:]

    /// Number of rooms being loaded for a join.
    public var loadingCount: Int { loads.count }

    private func makeLiveRoom(named name: String, stored loaded: Result<StoredRoom?, RoomStoreError>, lockKey: String?,
                              sceneName: String) throws(JoinFailure) -> (room: Room, origin: Origin) {
        let stored: StoredRoom?
        switch loaded {
        case .success(let value): stored = value
        case .failure(let error): throw .storeUnavailable(error.message)
        }
        guard let lease = services.ownership.acquire(room: name) else { throw .ownedElsewhere(room: name) }
        let room: Room
        let origin: Origin
        if let stored, let restored = restore(stored, lease: lease) {
            (room, origin) = (restored, .restored)
        } else {
            let settings = RoomSettings(name: name, sceneName: sceneName,
                                        driverKeyDigest: lockKey.map(DriverKey.digest(of:)))
            services.store.roomCreated(settings)
            // The catalogue was checked when the join came.
            let scene = services.scenes.scene(named: sceneName)!
            (room, origin) = (makeRoom(settings, scene: scene, rowMoveVersion: 0, lease: lease), .created)
        }
        rooms[name] = room
        services.metrics.rooms.record(rooms.count)
        return (room, origin)
    }

    /// The earliest time (on the room clock's own scale, ms) at which some room wants `tick()`,
    /// or nil when every room is idle. O(log rooms): from the deadline queue.
    public var nextTickDeadline: Double? {
        deadlines.earliest(isLive: isLive)
    }

    /// When the frame timer is set to fire (room clock scale, ms), or nil when it is not set.
    public var frameTimerDeadline: Double? { frameTimer.deadline }

    /// `room`'s `nextTickDeadline` may have moved (the room says so itself, whatever changed
    /// it): it is queued, and when it comes before the frame timer the timer moves to it, the
    /// later one cancelled. A deadline that moved later leaves the timer early; it then ticks
    /// nothing and is set again for the earliest room. O(1) here; the queue sorts it out later.
    func deadlineMayHaveMoved(of room: Room) {
        deadlines.deadlineMayHaveMoved(of: room)
        guard !isTicking, let deadline = room.nextTickDeadline else { return }
        if let set = frameTimer.deadline, set <= deadline { return }
        setFrameTimer(for: deadline)
    }

    private func setFrameTimer(for deadline: Double?) {
        frameTimer.set(for: deadline) { [unowned self] in
            frameTimer.fired()
            tick()
        }
    }

    /// Ticks the rooms due by now (within `tickWindow`); each sends what is due. Rooms not due
    /// are not looked at. The frame timer is then set for the earliest room left.
    public func tick() {
        isTicking = true
        let due = deadlines.takeDue(by: services.clock.nowMilliseconds() + Self.tickWindow, isLive: isLive)
        // Each ticked room marks itself again, even if it sent nothing (due a fraction of a ms later).
        for room in due { room.tick() }
        isTicking = false
        setFrameTimer(for: nextTickDeadline)
    }

    /// Entries in the deadline queue, stale ones included (tests: it holds rooms that want a
    /// tick, not every room).
    var queuedDeadlines: Int { deadlines.count }

    private func isLive(_ room: Room) -> Bool { rooms[room.name] === room }

    /// The store's own upkeep, and whether it writes (the `scrollcast_store_writable` gauge).
    /// Once a second, from housekeeping.
    public func storeHousekeeping() {
        services.store.housekeeping()
        services.metrics.storeWritable.record(services.store.isAcceptingWrites ? 1 : 0)
    }

    /// Drops rooms that have had no viewers for the grace period.
    public func removeExpiredRooms() {
        let expired = rooms.values.filter { room in
            guard let since = room.emptySince else { return false }
            return room.now - since >= limits.roomGraceMilliseconds
        }
        guard !expired.isEmpty else { return }
        for room in expired {
            rooms[room.name] = nil
            deadlines.deadlineMayHaveMoved(of: room)
            room.close()
            services.store.roomEvicted(named: room.name)
            services.ownership.release(room.lease)
        }
        services.metrics.rooms.record(rooms.count)
    }

    /// Makes room `settings.name` live here under `lease`, which this node already holds (a
    /// cluster took it): from `stored` when the store had it, else anew with `settings`. Frames
    /// continue from `firstSequence` (a room taken over from another node numbers on from the
    /// frames its viewers saw). Nil when `maxRooms` are live.
    public func adopt(_ settings: RoomSettings, stored: StoredRoom?, lease: RoomLease,
                      firstSequence: UInt64 = 0) -> (room: Room, origin: Origin)? {
        if let room = rooms[settings.name] { return (room, .live) }
        guard rooms.count < limits.maxRooms else { return nil }
        let room: Room
        let origin: Origin
        if let stored, let restored = restore(stored, lease: lease, firstSequence: firstSequence) {
            (room, origin) = (restored, .restored)
        } else {
            guard let scene = services.scenes.scene(named: settings.sceneName) else { return nil }
            services.store.roomCreated(settings)
            (room, origin) = (makeRoom(settings, scene: scene, rowMoveVersion: 0, lease: lease,
                                       firstSequence: firstSequence), .created)
        }
        rooms[settings.name] = room
        services.metrics.rooms.record(rooms.count)
        return (room, origin)
    }

    /// Drops room `name` at once, without a checkpoint or releasing its lease: this node lost
    /// the room to another (fencing), so nothing of it may reach the store or its viewers.
    public func abandon(named name: String) {
        guard let room = rooms.removeValue(forKey: name) else { return }
        deadlines.deadlineMayHaveMoved(of: room)
        room.abandon()
        services.metrics.rooms.record(rooms.count)
    }

    // MARK: -

    /// A room from the store; nil when its scene or row order no longer fits the catalogue (then
    /// the room starts afresh rather than showing a wrong table).
    private func restore(_ stored: StoredRoom, lease: RoomLease, firstSequence: UInt64 = 0) -> Room? {
        // A room that never moved a row shares the catalogue's scene; a reordered one has its own.
        guard var scene = services.scenes.scene(named: stored.settings.sceneName, restingAt: stored.restingOffset) else {
            return nil
        }
        if !stored.rowOrder.isEmpty {
            guard let reordered = scene.configuration.reorderingRows(stored.rowOrder) else { return nil }
            scene = ScrollScene(configuration: reordered).fresh(restingAt: stored.restingOffset)
        }
        return makeRoom(stored.settings, scene: scene, rowMoveVersion: stored.rowMoveVersion, lease: lease,
                        firstSequence: firstSequence)
    }

    private func makeRoom(_ settings: RoomSettings, scene: ScrollScene, rowMoveVersion: Int, lease: RoomLease,
                          firstSequence: UInt64 = 0) -> Room {
        let room = Room(name: settings.name, sceneName: settings.sceneName, scene: scene,
                        driverKeyDigest: settings.driverKeyDigest, rowMoveVersion: rowMoveVersion,
                        lease: lease, firstSequence: firstSequence, framePeriod: limits.tickMilliseconds, services: services,
                        registry: self)
        room.sharing.requestLifetime = limits.driveRequestMilliseconds
        return room
    }
}
