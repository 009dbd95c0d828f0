import Foundation
import ScrollcastRooms
import Synchronization
import TestSupport

/// A `RoomScheduler` that runs nothing until told to, on the caller's thread, by the time of a
/// `ManualRoomClock`: the room layer's timers (frames, housekeeping) driven step by step, as
/// NIO's `EmbeddedEventLoop` drives channels.
public final class ManualScheduler: RoomScheduler, @unchecked Sendable {
    /// The clock whose time decides what is due; `advance` moves it.
    public let clock: ManualRoomClock
    private var timers: [Timer] = []
    private var nextOrder = 0
    /// Work handed over by other threads, run by the next `advance` or `runDue`.
    private let handedOver = Mutex<[@Sendable () -> Void]>([])

    private struct Timer {
        let due: Double
        let order: Int
        let work: () -> Void
    }

    /// A scheduler reading `clock`.
    public init(clock: ManualRoomClock) {
        self.clock = clock
    }

    /// Queues `work` for when the clock reaches now + `milliseconds`; the handle takes it out
    /// of the queue.
    @discardableResult
    public func schedule(afterMilliseconds milliseconds: Double, _ work: @escaping () -> Void) -> ScheduledWork {
        let order = nextOrder
        timers.append(Timer(due: clock.now + max(0, milliseconds), order: order, work: work))
        nextOrder += 1
        return ScheduledWork { [weak self] in self?.cancel(order) }
    }

    private func cancel(_ order: Int) {
        guard let index = timers.firstIndex(where: { $0.order == order }) else { return }
        timers.remove(at: index)
        cancelledTimers += 1
    }

    /// Queues `work` to run on the next `runDue` (from any thread).
    public func execute(_ work: @escaping @Sendable () -> Void) {
        handedOver.withLock { $0.append(work) }
    }

    /// Timers waiting to fire.
    public var pendingTimers: Int { timers.count }

    /// Timers that have fired so far: the wake-ups a real service thread would have had.
    public private(set) var firedTimers = 0

    /// Timers cancelled before they fired.
    public private(set) var cancelledTimers = 0

    /// When the earliest timer is due, or nil when none waits.
    public var nextDue: Double? { timers.map(\.due).min() }

    /// Runs handed-over work, then every timer due by now, earliest first (in scheduling order
    /// among equals), including timers that those set for no later than now.
    public func runDue() {
        for work in handedOver.withLock({ queue in defer { queue.removeAll() }; return queue }) { work() }
        while let index = earliestDueIndex() {
            let timer = timers.remove(at: index)
            firedTimers += 1
            timer.work()
        }
    }

    /// Moves the clock forward to each timer due within `milliseconds` in turn, running it at its
    /// own time, then to the end of the interval: what a real clock would do over that time.
    public func advance(by milliseconds: Double) {
        let end = clock.now + max(0, milliseconds)
        runDue()
        while let due = nextDue, due <= end {
            clock.advance(by: due - clock.now)
            runDue()
        }
        clock.advance(by: end - clock.now)
        runDue()
    }

    /// Runs handed-over work (and timers due by now) until `condition` holds or `timeout` seconds
    /// pass, polling: for work that other threads (a store's reads, a Redis reply) hand back to
    /// the room thread. Whether `condition` held.
    @discardableResult
    public func runUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        waitUntil(timeout: timeout, interval: 0.001) {
            runDue()
            return condition()
        }
    }

    private func earliestDueIndex() -> Int? {
        var best: Int?
        for (index, timer) in timers.enumerated() where timer.due <= clock.now {
            if let current = best, (timers[current].due, timers[current].order) <= (timer.due, timer.order) { continue }
            best = index
        }
        return best
    }
}
