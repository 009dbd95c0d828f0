import Glibc

/// Receives Redis pub/sub messages on a connection and a thread of its own (a subscribed
/// connection can do nothing else).
///
/// ``subscribe(_:)`` and ``unsubscribe(_:)`` may be called from any thread, before or after
/// ``start()``, and are remembered: after a reconnect the subscriber subscribes again to every
/// channel, and only then reports ``RedisLinkState/connected``, so the owner can resynchronise
/// whatever was published while the link was down. Messages and state changes arrive on the
/// subscriber's thread. A link silent for the timeout gets a `PING`; no answer within the timeout
/// again counts as a lost link, so a hung Redis is noticed even when nothing is published.
public final class RedisSubscriber: Sendable {
    /// The server this subscriber listens to (the database does not matter to pub/sub).
    public var address: RedisAddress { core.address }
    /// The name given at creation, used in error messages and as the Redis client name.
    public var name: String { core.name }

    private let core: SubscriberCore
    private let thread = LinkThread()

    /// Creates a subscriber; nothing connects until ``start()``.
    /// - Parameters:
    ///   - address: The server.
    ///   - name: Names the subscriber in errors and logs; also sent as `CLIENT SETNAME`.
    ///   - timeoutMilliseconds: The longest a connect or a write may take, the silence after which
    ///     the link is checked with `PING`, and the time that `PING` has to be answered.
    ///   - onMessage: Called on the subscriber's thread with the channel and the payload (byte
    ///     for byte) of each message on a channel currently subscribed.
    ///   - onSubscribed: Called on the subscriber's thread each time Redis confirms a subscription
    ///     (after `subscribe`, and again after every reconnect): from then on, whatever is
    ///     published on the channel arrives, so a protocol can safely ask a publisher to begin.
    ///   - onStateChange: Called on the subscriber's thread when the link goes up or down.
    public init(
        address: RedisAddress, name: String, timeoutMilliseconds: Int = 1000,
        onMessage: @escaping @Sendable (_ channel: String, _ payload: [UInt8]) -> Void,
        onSubscribed: @escaping @Sendable (_ channel: String) -> Void = { _ in },
        onStateChange: @escaping @Sendable (RedisLinkState) -> Void = { _ in }
    ) {
        core = SubscriberCore(
            address: address, name: name, timeoutMilliseconds: timeoutMilliseconds,
            onMessage: onMessage, onSubscribed: onSubscribed, onStateChange: onStateChange)
    }

    deinit { close() }

    /// Starts the subscriber's thread, which connects in the background; returns at once. Calls
    /// after the first, or after ``close()``, do nothing.
    public func start() {
        let starts = core.shared.withLock { shared in
            guard shared.phase == .created else { return false }
            shared.phase = .running
            return true
        }
        guard starts else { return }
        let core = self.core
        thread.start(name: "redis-s-\(core.name)") { SubscriberWorker(core: core).run() }
    }

    /// Subscribes to a channel, now if connected and again after every reconnect. Messages on it
    /// arrive once Redis has confirmed (see ``subscribedChannels``).
    public func subscribe(_ channel: String) {
        core.shared.withLock { shared in
            guard shared.wanted.insert(channel).inserted else { return }
            WakeEvent.signal(shared.wakeDescriptor)
        }
    }

    /// Unsubscribes from a channel; no message on it reaches `onMessage` after this returns.
    public func unsubscribe(_ channel: String) {
        core.shared.withLock { shared in
            guard shared.wanted.remove(channel) != nil else { return }
            WakeEvent.signal(shared.wakeDescriptor)
        }
    }

    /// Whether the link is up and every channel asked for at connect time is subscribed.
    public var isConnected: Bool { core.shared.withLock { $0.connected } }

    /// The channels Redis has confirmed on the current link (empty while it is down).
    public var subscribedChannels: Set<String> { core.shared.withLock { $0.confirmed } }

    /// Stops the subscriber: the thread ends and the link state goes to disconnected. Returns once
    /// the thread has ended (so no callback runs afterwards), except when called from one of the
    /// subscriber's own callbacks. Safe to call more than once.
    public func close() {
        core.shared.withLock { shared in
            shared.phase = .closed
            if shared.socketDescriptor >= 0 { _ = shutdown(shared.socketDescriptor, Int32(SHUT_RDWR)) }
            WakeEvent.signal(shared.wakeDescriptor)
        }
        if !thread.isCurrent { thread.waitUntilFinished() }
    }
}
