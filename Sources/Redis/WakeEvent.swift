import Glibc
internal import CHiredisShim

/// An eventfd that other threads write to wake a link's thread out of poll(2), so a subscribe or
/// a command takes effect at once instead of at the next timeout.
enum WakeEvent {
    static func create(label: String) throws(RedisError) -> Int32 {
        let descriptor = schr_eventfd()
        guard descriptor >= 0 else {
            throw RedisError(.resources, "cannot create an eventfd: \(String(cString: strerror(errno)))", link: label)
        }
        return descriptor
    }

    /// Nonblocking: a counter that is already huge (EAGAIN) is still a pending wake-up.
    static func signal(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Waits up to `milliseconds` for a signal; true (and drained) if one came.
    static func wait(_ descriptor: Int32, milliseconds: Int) -> Bool {
        var event = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&event, 1, Int32(clamping: milliseconds)) > 0 else { return false }
        drain(descriptor)
        return true
    }

    /// Sleeps `milliseconds` in poll(2) on the eventfd rather than in `sleep`, so a link thread
    /// waiting to reconnect still ends at once when `isClosing` turns true; `woken` runs after
    /// each signal that came meanwhile.
    static func sleep(_ descriptor: Int32, milliseconds: Int, isClosing: () -> Bool, woken: () -> Void = {}) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while !isClosing() {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            if wait(descriptor, milliseconds: remaining.roundedUpMilliseconds) { woken() }
        }
    }

    static func drain(_ descriptor: Int32) {
        var count: UInt64 = 0
        _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
