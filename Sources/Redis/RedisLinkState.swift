/// The state of a link, reported to the owner of a ``RedisCommandQueue`` or ``RedisSubscriber``
/// when it changes.
public enum RedisLinkState: Sendable, Hashable {
    /// The link is up and ready: commands are sent, or (for a subscriber) every channel asked for
    /// is subscribed again, so the owner may resynchronise anything it missed while down.
    case connected
    /// The link is down (or never came up); it is retried in the background until closed.
    case disconnected(reason: String)
}
