#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The two clocks the load generator needs: a monotonic one for input-to-frame latency (all
/// on this machine) and the wall clock to compare with the server's `sentAt` (same machine, so
/// the same wall clock).
enum Clock {
    /// Milliseconds on the monotonic clock; only differences mean anything.
    static func monotonicMs() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
    }

    /// CPU seconds this whole process has used (every thread), for the tool's own cost per frame.
    static func processCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
    }

    /// Milliseconds since the Unix epoch, as the server stamps `sentAt`.
    static func wallMs() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
    }
}
