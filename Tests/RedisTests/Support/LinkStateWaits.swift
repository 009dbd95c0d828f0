import Foundation
import Redis
import TestSupport

extension EventCollector where Event == RedisLinkState {
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
