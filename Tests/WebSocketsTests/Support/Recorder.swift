import Foundation

/// Collects events from service threads and lets a test wait (condition variable, with a deadline)
/// until they satisfy a predicate.
final class Recorder<Event: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [Event] = []

    func append(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.broadcast()
        condition.unlock()
    }

    var all: [Event] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    /// Waits until `extract` finds something in the events; nil if the deadline passes first.
    func wait<T>(timeout: TimeInterval = 10, for extract: ([Event]) -> T?) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = extract(events) { return found }
            if !condition.wait(until: deadline) { return extract(events) }
        }
    }
}
