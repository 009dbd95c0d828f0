import Foundation

/// A monotonic source of milliseconds. Rooms measure their own time (ms since the room was
/// created) from it; tests hand rooms a clock they advance by hand (ScrollcastServerTesting).
public protocol RoomClock: AnyObject {
    /// Milliseconds since an arbitrary fixed origin; never decreases.
    func nowMilliseconds() -> Double
}

/// The process's monotonic clock (`CLOCK_MONOTONIC`), unaffected by wall-clock changes.
public final class MonotonicRoomClock: RoomClock {
    /// A clock reading the system's monotonic time.
    public init() {}

    /// Milliseconds since boot, with sub-millisecond precision.
    public func nowMilliseconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000
    }
}

/// Wall-clock milliseconds since the Unix epoch, for a frame's `sentAt`.
public typealias WallClock = @Sendable () -> Double

/// The system's wall clock.
public let systemWallClock: WallClock = { Date().timeIntervalSince1970 * 1000 }
