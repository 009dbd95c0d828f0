import Synchronization

/// Counts one client thread hands to the progress line: the thread counts lock-free and
/// publishes here a few times a second; the main thread takes them once a second.
final class ShardProgress: Sendable {
    /// Counts since the main thread last took them.
    struct Interval {
        var frames: UInt64 = 0
        var latency = LatencyHistogram()
        /// All errors the thread has seen so far (not just in this interval).
        var errorsSoFar = 0
    }

    private let slot = Mutex(Interval())

    /// Adds a thread's counts (frames, latencies) and sets its running error total.
    func publish(frames: UInt64, latency: LatencyHistogram, errorsSoFar: Int) {
        slot.withLock { slot in
            slot.frames += frames
            slot.latency.merge(latency)
            slot.errorsSoFar = errorsSoFar
        }
    }

    /// Returns the counts published since the last call and starts a new interval.
    func take() -> Interval {
        slot.withLock { slot in
            let taken = slot
            slot.frames = 0
            slot.latency.reset()
            return taken
        }
    }
}
