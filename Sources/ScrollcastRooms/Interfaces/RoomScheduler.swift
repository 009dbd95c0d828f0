/// Runs the room layer's work on the room thread: the one thread that touches rooms, viewers
/// and their sinks. Injected into the server (as NIO injects an `EventLoop`), so the frame clock
/// and housekeeping run on the transport's service thread in production and on a test's own
/// thread, by hand, in tests.
public protocol RoomScheduler: AnyObject, Sendable {
    /// Runs `work` on the room thread once `milliseconds` have passed. Call on the room thread.
    func schedule(afterMilliseconds milliseconds: Double, _ work: @escaping () -> Void)
    /// Runs `work` on the room thread as soon as it can. Callable from any thread: the way other
    /// threads (a store's writer, a broker's reader) hand results back.
    func execute(_ work: @escaping @Sendable () -> Void)
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
