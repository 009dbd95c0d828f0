/// The room layer's two clocks: the frame timer, set for the earliest room that wants a tick,
/// and housekeeping once a second. Both run on the `RoomScheduler`, so tests drive them by hand.
@RoomActor public final class RoomTimers {
    /// How often housekeeping runs, ms.
    public static let housekeepingInterval = 1000.0

    private let registry: RoomRegistry
    private let hub: ViewerHub
    private let scheduler: RoomScheduler
    private let clock: RoomClock
    /// When the frame timer is set to fire (room clock scale, ms), or nil when it is not set.
    private var tickDeadline: Double?

    /// Timers ticking `registry`'s rooms and `hub`'s housekeeping on `scheduler`.
    public init(registry: RoomRegistry, hub: ViewerHub, scheduler: RoomScheduler, clock: RoomClock) {
        self.registry = registry
        self.hub = hub
        self.scheduler = scheduler
        self.clock = clock
        registry.roomChangedOnItsOwn = { [unowned self] in roomsChanged() }
    }

    /// Starts housekeeping. Call once, on the room thread.
    public func start() {
        scheduler.scheduleRepeating(everyMilliseconds: Self.housekeepingInterval) { [hub] in
            hub.housekeeping()
        }
    }

    /// Something may have made a room want a tick sooner (input, a join or a leave): sets the
    /// frame timer for the earliest room that wants one, unless one is already set for that time
    /// or earlier. A timer set for a later time than a newer one becomes stale and does nothing
    /// when it fires.
    public func roomsChanged() {
        guard let deadline = registry.nextTickDeadline else { return }
        if let scheduled = tickDeadline, scheduled <= deadline { return }
        tickDeadline = deadline
        scheduler.schedule(afterMilliseconds: max(0, deadline - clock.nowMilliseconds())) { [self] in
            guard tickDeadline == deadline else { return }
            tickDeadline = nil
            registry.tick()
            roomsChanged()
        }
    }
}
