import Foundation

/// A monotonic source of milliseconds. Rooms measure their own time (ms since the room was
/// created) from it; tests hand rooms a clock they advance by hand.
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

/// A clock that only moves when told to: for tests and simulations.
public final class ManualRoomClock: RoomClock {
    /// The current reading, ms.
    public private(set) var now: Double

    /// A clock reading `start` ms.
    public init(start: Double = 1_000) { self.now = start }

    /// The current reading, ms.
    public func nowMilliseconds() -> Double { now }

    /// Moves the clock forward by `milliseconds` (negative values are ignored: it stays monotonic).
    public func advance(by milliseconds: Double) { now += max(0, milliseconds) }
}

/// Wall-clock milliseconds since the Unix epoch, for a frame's `sentAt`.
public typealias WallClock = @Sendable () -> Double

/// The system's wall clock.
public let systemWallClock: WallClock = { Date().timeIntervalSince1970 * 1000 }
