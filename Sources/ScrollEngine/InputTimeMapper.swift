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
    /// ahead is placed at `now + maxLead`.
    public static let maxLead = 250.0
    // Plain doubles rather than optionals: the page runs this in WebAssembly, where every byte
    // of code counts (docs/wasm.md, "Size").
    private var hasAnchor = false
    private var anchorClient = 0.0
    private var anchorRoom = 0.0
    private var lastClientTime = -Double.infinity

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
        if clientTime < lastClientTime {
            throw .wentBackwards(previous: lastClientTime, got: clientTime)
        }
        return mapped(clientTime: clientTime, at: at, now: now, floor: floor, startsGesture: startsGesture) ?? now
    }

    /// `map(clientTime:at:now:floor:startsGesture:)`, nil where it throws (the WebAssembly
    /// boundary reports a failure as a number).
    public mutating func mapped(clientTime: Double, at: Double?, now: Double, floor: Double,
                                startsGesture: Bool) -> Double? {
        if clientTime < lastClientTime { return nil }
        lastClientTime = clientTime
        var time: Double
        if let at, at > now {
            time = max(floor, min(at, now + Self.maxLead))
        } else if startsGesture || !hasAnchor {
            time = max(floor, now)
        } else {
            time = anchorRoom + (clientTime - anchorClient)
            let high = max(floor, now), low = max(floor, now - maxLag)
            // Inside the window the anchor stays, so every later event keeps its interval.
            if time <= high && time >= low { return time }
            time = min(high, max(low, time))
        }
        confirm(clientTime: clientTime, room: time)
        return time
    }

    /// The room applied the event stamped `clientTime` at `room` (its `applied` message): a client
    /// predicting the room anchors there, so later predictions follow the room's.
    public mutating func confirm(clientTime: Double, room: Double) {
        hasAnchor = true
        anchorClient = clientTime
        anchorRoom = room
    }

    /// Forgets the anchor and the last client time (a new connection).
    public mutating func reset() {
        hasAnchor = false
        lastClientTime = -.infinity
    }
}
