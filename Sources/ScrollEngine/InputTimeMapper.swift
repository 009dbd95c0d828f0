/// Maps one viewer's input timestamps onto the room clock: the server's rule, which a client
/// runs too (the page through the WebAssembly exports) to know where its inputs will land.
///
/// Release velocity is computed from the intervals between events, so those intervals should be
/// the client's (network jitter would otherwise distort a fling). But the engine needs times that
/// never go backwards across all viewers and never lie in the future of the room. So each viewer
/// keeps an anchor (client time ↔ room time) set at a gesture's first event; later events keep
/// their client intervals from that anchor, clamped into `[floor, now]`. Whenever a clamp bites
/// (the client's clock ran fast, or its events were delayed longer than `maxLag`) the anchor
/// moves, so one bad interval does not shift every later event.
///
/// A client that keeps the room's clock may stamp an input with the room time it drew it at
/// (`at`, docs/protocol.md). One stamped ahead of the room's present is *early*: it is placed
/// at `at` (at most `maxLead` ahead, never before `floor`) and the room holds it until then. One
/// whose `at` has passed is *late* and is mapped as an unstamped one.
public struct InputTimeMapper: Sendable {
    /// How far behind the room clock a mapped time may fall, ms.
    public let maxLag: Double
    /// How far ahead of the room's present an early input may be placed, ms: an `at` further
    /// ahead is placed at `now + maxLead`. Room for a driver's lead of a round trip plus a
    /// lost segment's 200 ms stall (docs/wasm.md, "The clock"): at 250 a 4g link's stalls
    /// made inputs late whatever the lead.
    public static let maxLead = 500.0
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
    /// `floor` is the earliest time the room may give a new change (after every time already
    /// given to the engine and every mark sent); the answer lies in
    /// `max(floor, now - maxLag) … max(floor, now)`. `startsGesture` re-anchors at this event.
    public mutating func map(clientTime: Double, now: Double, floor: Double,
                             startsGesture: Bool) throws(Failure) -> Double {
        try map(clientTime: clientTime, at: nil, now: now, floor: floor, startsGesture: startsGesture)
    }

    /// Room time for an event stamped `clientTime` and, when the client keeps the room's clock,
    /// `at` (the room time it drew it at), received at room time `now`. An early `at` (after
    /// `now`) gives `max(floor, min(at, now + maxLead))`, after `now`: the room holds the input
    /// until then. Otherwise as `map(clientTime:now:floor:startsGesture:)`. Either way the answer
    /// anchors later events.
    public mutating func map(clientTime: Double, at: Double?, now: Double, floor: Double,
                             startsGesture: Bool) throws(Failure) -> Double {
        if let last = lastClientTime, clientTime < last {
            throw .wentBackwards(previous: last, got: clientTime)
        }
        return mapped(clientTime: clientTime, at: at, now: now, floor: floor, startsGesture: startsGesture) ?? now
    }

    /// `map(clientTime:at:now:floor:startsGesture:)`, nil where it throws (the WebAssembly
    /// boundary reports a failure as a number).
    public mutating func mapped(clientTime: Double, at: Double?, now: Double, floor: Double,
                                startsGesture: Bool) -> Double? {
        if let last = lastClientTime, clientTime < last { return nil }
        lastClientTime = clientTime
        if let at, at > now {
            let placed = max(floor, min(at, now + Self.maxLead))
            anchor = (clientTime, placed)
            return placed
        }
        let high = max(floor, now)
        let low = max(floor, now - maxLag)
        guard !startsGesture, let anchor else {
            anchor = (clientTime, high)
            return high
        }
        let candidate = anchor.room + (clientTime - anchor.client)
        if candidate > high || candidate < low {
            let mapped = min(high, max(low, candidate))
            self.anchor = (clientTime, mapped)
            return mapped
        }
        return candidate
    }

    /// The room applied the event stamped `clientTime` at `room` (its `applied` message): a client
    /// predicting the room anchors there, so later predictions follow the room's.
    public mutating func confirm(clientTime: Double, room: Double) {
        anchor = (clientTime, room)
    }

    /// Forgets the anchor and the last client time (a new connection).
    public mutating func reset() {
        anchor = nil
        lastClientTime = nil
    }
}
