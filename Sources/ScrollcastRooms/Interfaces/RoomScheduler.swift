/// Runs the room layer's work on the room thread: the one thread that touches rooms, viewers
/// and their sinks. Injected into the server (as NIO injects an `EventLoop`), so the frame clock
/// and housekeeping run on the transport's service thread in production and on a test's own
/// thread, by hand, in tests.
public protocol RoomScheduler: AnyObject, Sendable {
    /// Runs `work` on the room thread once `milliseconds` have passed, unless the returned
    /// handle is cancelled first (as NIO's `scheduleTask` returns a `Scheduled`). Call on the
    /// room thread.
    @discardableResult
    func schedule(afterMilliseconds milliseconds: Double, _ work: @escaping () -> Void) -> ScheduledWork
    /// Runs `work` on the room thread as soon as it can. Callable from any thread: the way other
    /// threads (a store's writer, a broker's reader) hand results back.
    func execute(_ work: @escaping @Sendable () -> Void)
}

/// Work a `RoomScheduler` will run later: `cancel()` makes sure it never runs. Cancelling work
/// that already ran, or cancelling twice, does nothing. Room thread only.
public struct ScheduledWork {
    private let cancelAction: () -> Void

    /// A handle whose `cancel()` calls `cancel` (the scheduler's own way to drop the work).
    public init(cancel: @escaping () -> Void) {
        self.cancelAction = cancel
    }

    /// Drops the work if it has not run yet.
    public func cancel() {
        cancelAction()
    }
}

extension RoomScheduler {
    /// Runs `work` every `milliseconds` on the room thread, the first time one interval from now,
    /// for as long as the scheduler runs. Each run is scheduled when the previous one ends, so
    /// a slow run delays the next rather than piling runs up.
    public func scheduleRepeating(everyMilliseconds milliseconds: Double, _ work: @escaping () -> Void) {
        schedule(afterMilliseconds: milliseconds) { [self] in
            work()
            scheduleRepeating(everyMilliseconds: milliseconds, work)
        }
    }
}
