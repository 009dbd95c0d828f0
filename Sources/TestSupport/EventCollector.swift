import Foundation

/// Collects events that other threads report (a service thread, a Redis queue, a store's writer)
/// and lets a test wait until they satisfy a condition, up to a deadline: a condition variable
/// wakes the waiter on every new event, so no test sleeps for a guessed time.
///
/// The one collector every test target uses (WebSockets, Redis, the room layer, the store and the
/// cluster), as Hummingbird's testing module gives every test one client.
public final class EventCollector<Event: Sendable>: @unchecked Sendable {
    // Sound: `events` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var events: [Event] = []

    /// An empty collector.
    public init() {}

    /// Records `event` (from any thread) and wakes every waiter.
    public func append(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.broadcast()
        condition.unlock()
    }

    /// Every event so far, in the order they were appended.
    public var all: [Event] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    /// Waits until `predicate` holds for the events so far; false if `timeout` seconds pass first.
    @discardableResult
    public func wait(timeout: TimeInterval = 10, until predicate: ([Event]) -> Bool) -> Bool {
        wait(timeout: timeout) { events in predicate(events) ? true : nil } ?? false
    }

    /// Waits until `extract` finds something in the events so far and returns it; nil if
    /// `timeout` seconds pass first.
    public func wait<T>(timeout: TimeInterval = 10, for extract: ([Event]) -> T?) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = extract(events) { return found }
            if !condition.wait(until: deadline) { return extract(events) }
        }
    }
}

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds pass; whether
/// it held. For state nobody reports as an event (a flag another thread sets, a process's
/// readiness): the deadline bounds the wait, the condition ends it.
@discardableResult
public func waitUntil(timeout: TimeInterval = 10, interval: TimeInterval = 0.005, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        guard Date() < deadline else { return condition() }
        Thread.sleep(forTimeInterval: interval)
    }
    return true
}
