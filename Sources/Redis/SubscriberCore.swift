import Synchronization

/// The settings and the locked state that a ``RedisSubscriber`` and its thread share. Held by
/// both, so the thread never keeps the public object alive (its deinit closes the subscriber).
final class SubscriberCore: Sendable {
    enum Phase { case created, running, closed }

    struct Shared {
        var phase = Phase.created
        /// True once every channel wanted at connect time is confirmed, until the link is lost.
        var connected = false
        /// The channels the owner asked for; the thread makes Redis match this after each change
        /// and after every reconnect.
        var wanted: Set<String> = []
        /// The channels Redis has confirmed on the current link.
        var confirmed: Set<String> = []
        /// The thread's eventfd, -1 when there is none; written under the lock so it is never
        /// closed (and its number reused) in between.
        var wakeDescriptor: Int32 = -1
        /// The connected socket, so `close` can shut it down and end a blocked write at once.
        var socketDescriptor: Int32 = -1
    }

    let address: RedisAddress
    let name: String
    let label: String
    let timeoutMilliseconds: Int
    let onMessage: @Sendable (String, [UInt8]) -> Void
    let onSubscribed: @Sendable (String) -> Void
    let onStateChange: @Sendable (RedisLinkState) -> Void
    let shared = Mutex(Shared())

    init(
        address: RedisAddress, name: String, timeoutMilliseconds: Int,
        onMessage: @escaping @Sendable (String, [UInt8]) -> Void,
        onSubscribed: @escaping @Sendable (String) -> Void,
        onStateChange: @escaping @Sendable (RedisLinkState) -> Void
    ) {
        self.address = address
        self.name = name
        self.label = "Redis subscriber \(name) (\(address))"
        self.timeoutMilliseconds = max(1, timeoutMilliseconds)
        self.onMessage = onMessage
        self.onSubscribed = onSubscribed
        self.onStateChange = onStateChange
    }
}
