import ScrollcastRooms

/// A clock that only moves when told to: for tests and simulations of rooms.
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
