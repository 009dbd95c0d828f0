import Foundation
import Redis
import RedisTesting

/// Collects events from a queue's or subscriber's thread and lets a test wait (condition
/// variable, with a deadline) until they satisfy a predicate.
final class EventLog<Event: Sendable>: @unchecked Sendable {
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

    /// Waits until `predicate` holds for the events so far; false if the deadline passes first.
    @discardableResult
    func wait(timeout: TimeInterval = 10, until predicate: ([Event]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(events) {
            if !condition.wait(until: deadline) { return predicate(events) }
        }
        return true
    }
}

extension EventLog where Event == RedisLinkState {
    /// Waits for the n-th `.connected` report (1 for the first connect, 2 after a reconnect...).
    @discardableResult
    func waitForConnected(_ count: Int = 1, timeout: TimeInterval = 10) -> Bool {
        wait(timeout: timeout) { $0.filter { $0 == .connected }.count >= count }
    }

    /// Waits for the n-th `.disconnected` report.
    @discardableResult
    func waitForDisconnected(_ count: Int = 1, timeout: TimeInterval = 10) -> Bool {
        wait(timeout: timeout) { events in
            events.filter { if case .disconnected = $0 { true } else { false } }.count >= count
        }
    }
}
