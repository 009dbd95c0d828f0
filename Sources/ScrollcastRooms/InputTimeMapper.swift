/// Maps one viewer's input timestamps (`t`, the client's own clock) onto the room clock.
///
/// Release velocity is computed from the intervals between events, so those intervals should be
/// the client's (network jitter would otherwise distort a fling). But the engine needs times that
/// never go backwards across all viewers and never lie in the future of the room. So each viewer
/// keeps an anchor (client time ↔ room time) set at a gesture's first event; later events keep
/// their client intervals from that anchor, clamped into `[floor, now]`. Whenever a clamp bites
/// (the client's clock ran fast, or its events were delayed longer than `maxLag`) the anchor
/// moves, so one bad interval does not shift every later event.
public struct InputTimeMapper: Sendable {
    /// How far behind the room clock a mapped time may fall, ms.
    public let maxLag: Double
    private var anchor: (client: Double, room: Double)?
    private var lastClientTime: Double?

    /// A mapper with no anchor yet.
    public init(maxLag: Double = 250) { self.maxLag = maxLag }

    /// Why a client time cannot be mapped.
    public enum Failure: Error, Sendable, Hashable {
        /// The client's `t` is earlier than its previous one.
        case wentBackwards(previous: Double, got: Double)
    }

    /// Room time for an event the client stamped `clientTime`, received at room time `now`.
    /// `floor` is the latest time already given to the engine (by any viewer); the answer lies in
    /// `max(floor, now - maxLag) … now` (or is `now` when `floor > now`, which a monotonic clock
    /// never produces). `startsGesture` re-anchors at this event.
    public mutating func map(clientTime: Double, now: Double, floor: Double,
                             startsGesture: Bool) throws(Failure) -> Double {
        if let last = lastClientTime, clientTime < last {
            throw .wentBackwards(previous: last, got: clientTime)
        }
        lastClientTime = clientTime
        let low = min(now, max(floor, now - maxLag))
        guard !startsGesture, let anchor else {
            anchor = (clientTime, now)
            return now
        }
        let candidate = anchor.room + (clientTime - anchor.client)
        if candidate > now || candidate < low {
            let mapped = min(now, max(low, candidate))
            self.anchor = (clientTime, mapped)
            return mapped
        }
        return candidate
    }
}
