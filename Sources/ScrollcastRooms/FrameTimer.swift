/// The one timer that ticks every room (docs/design.md, "Frame clock"): set on the
/// `RoomScheduler` for a deadline on the room clock, and moved when another is asked for, the
/// timer set before cancelled, so no stale wake-up is left behind.
@RoomActor struct FrameTimer {
    private let scheduler: RoomScheduler
    private let clock: RoomClock
    /// When the timer is set to fire (room clock scale, ms), or nil when it is not set.
    private(set) var deadline: Double?
    private var scheduled: ScheduledWork?

    /// A timer on `scheduler`, reading `clock`.
    init(scheduler: RoomScheduler, clock: RoomClock) {
        self.scheduler = scheduler
        self.clock = clock
    }

    /// Sets the timer to run `fire` at `deadline`, cancelling the one set for another time;
    /// nil cancels it. Nothing changes when it is set for `deadline` already.
    mutating func set(for deadline: Double?, fire: @escaping () -> Void) {
        guard deadline != self.deadline else { return }
        scheduled?.cancel()
        scheduled = nil
        self.deadline = deadline
        guard let deadline else { return }
        scheduled = scheduler.schedule(afterMilliseconds: max(0, deadline - clock.nowMilliseconds()), fire)
    }

    /// The timer fired: it is set for nothing until the next `set`.
    mutating func fired() {
        deadline = nil
        scheduled = nil
    }
}
