import ScrollEngine

/// The live rooms by name: creates a room on first join, keeps an empty one for a grace
/// period, and ticks the rooms that animate.
public final class RoomRegistry {
    private let limits: ServerLimits
    private let clock: RoomClock
    private let wallClock: WallClock
    private let metrics: ServerMetrics
    private let makeConfiguration: () -> SceneConfiguration
    private var rooms: [String: Room] = [:]

    /// A registry making rooms with `makeConfiguration()` (the demo scene, in the server).
    public init(limits: ServerLimits, clock: RoomClock, wallClock: @escaping WallClock,
                metrics: ServerMetrics, makeConfiguration: @escaping () -> SceneConfiguration) {
        self.limits = limits
        self.clock = clock
        self.wallClock = wallClock
        self.metrics = metrics
        self.makeConfiguration = makeConfiguration
    }

    /// Why a room could not be joined.
    public enum JoinFailure: Error, Sendable, Hashable {
        /// Creating the room would exceed `maxRooms`.
        case tooManyRooms(limit: Int)
    }

    /// Number of live rooms.
    public var count: Int { rooms.count }

    /// The room called `name`, if it lives.
    public func room(named name: String) -> Room? { rooms[name] }

    /// The room called `name`, created (locked with `lockKey` if given, showing `scene`) when it
    /// does not exist; an existing room keeps its own scene. `created` says whether this call
    /// created it. The `demo` preset is `makeConfiguration()` (the server's default scene); the
    /// others are the engine's `ScenePreset.configuration()`.
    public func roomForJoin(named name: String, lockKey: String?,
                            scene: ScenePreset = .default) throws(JoinFailure) -> (room: Room, created: Bool) {
        if let room = rooms[name] { return (room, false) }
        guard rooms.count < limits.maxRooms else { throw .tooManyRooms(limit: limits.maxRooms) }
        let configuration = scene == .demo ? makeConfiguration() : scene.configuration()
        let room = Room(name: name, configuration: configuration, driverKey: lockKey, preset: scene,
                        framePeriod: limits.tickMilliseconds, clock: clock, wallClock: wallClock, metrics: metrics)
        rooms[name] = room
        metrics.rooms.record(rooms.count)
        return (room, true)
    }

    /// The earliest time (on the room clock's own scale, ms) at which some room wants `tick()`,
    /// or nil when every room is idle.
    public var nextTickDeadline: Double? {
        var earliest: Double?
        for room in rooms.values {
            if let deadline = room.nextTickDeadline, deadline < earliest ?? .infinity { earliest = deadline }
        }
        return earliest
    }

    /// Ticks every room that wants a tick; each sends what is due by now.
    public func tick() {
        for room in rooms.values where room.nextTickDue != nil { room.tick() }
    }

    /// Drops rooms that have had no viewers for the grace period.
    public func removeExpiredRooms() {
        let expired = rooms.values.filter { room in
            guard let since = room.emptySince else { return false }
            return room.now - since >= limits.roomGraceMilliseconds
        }
        guard !expired.isEmpty else { return }
        for room in expired { rooms[room.name] = nil }
        metrics.rooms.record(rooms.count)
    }
}
