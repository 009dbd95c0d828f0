import CThreadPriority

/// How the threads rooms use are scheduled (docs/design.md, "Thread priorities"): a recording
/// export's worker runs behind everything (SCHED_IDLE, else nice 19), and the room thread may run ahead of
/// everything (real-time round-robin, when the server is started with
/// `--room-thread-priority realtime` and may).
public enum ThreadPriority {
    /// The calling thread in the SCHED_IDLE policy (at nice 19 should that be refused): it runs
    /// on CPU time no ordinary thread wants, and gives the CPU up at once to one that wakes.
    /// Returns 0, or the errno of the failure.
    static func lowerToBackground() -> Int32 { scthread_lower_to_idle() }

    /// The calling thread (the room thread) in the real-time round-robin class at priority 1.
    /// Returns 0, or the errno of the failure (EPERM without CAP_SYS_NICE).
    public static func raiseToRealtime() -> Int32 { scthread_raise_to_realtime() }

    /// Names the calling thread as tools (`top -H`, /proc) show it: at most 15 bytes.
    static func nameCurrentThread(_ name: String) { _ = scthread_set_name(name) }

    /// Whether the calling thread is in a real-time class.
    public static var isRealtime: Bool { scthread_is_realtime() != 0 }
}
