import Synchronization

/// What a command's sender gets back, on the queue's thread.
typealias RedisCompletion = @Sendable (Result<RedisValue, RedisError>) -> Void

/// A command waiting for the queue's thread.
struct QueuedCommand: Sendable {
    let arguments: [[UInt8]]
    let completion: RedisCompletion
}

/// A completion that is to fail, on the queue's thread, without its command being sent.
struct RefusedCommand: Sendable {
    let completion: RedisCompletion
    let error: RedisError
}

/// The settings and the locked state that a ``RedisCommandQueue`` and its thread share. Held by
/// both, so the thread never keeps the public object alive (its deinit closes the queue).
final class CommandQueueCore: Sendable {
    enum Phase { case created, running, closed }

    struct Shared {
        var phase = Phase.created
        /// True from a completed connect (database selected) until the link is lost.
        var connected = false
        /// Why the link is down (without the label), for the errors of commands refused meanwhile.
        var lastFailure = "no connect has succeeded yet"
        /// Accepted while connected; the thread takes them in order, in batches.
        var pending: [QueuedCommand] = []
        /// Refused while not connected; failed on the thread so no completion runs inside `send`.
        var refused: [RefusedCommand] = []
        /// The thread's eventfd, -1 when there is none; written under the lock so it is never
        /// closed (and its number reused) in between.
        var wakeDescriptor: Int32 = -1
        /// The connected socket, so `close` can shut it down and end a blocked read at once.
        var socketDescriptor: Int32 = -1
    }

    let address: RedisAddress
    let name: String
    let label: String
    let commandTimeoutMilliseconds: Int
    let onStateChange: @Sendable (RedisLinkState) -> Void
    let shared = Mutex(Shared())

    /// Records why the link is down (its message: the refusals name the link themselves).
    func noteFailure(_ error: RedisError) {
        shared.withLock { $0.lastFailure = error.message }
    }

    init(
        address: RedisAddress, name: String, commandTimeoutMilliseconds: Int,
        onStateChange: @escaping @Sendable (RedisLinkState) -> Void
    ) {
        self.address = address
        self.name = name
        self.label = "Redis command queue \(name) (\(address))"
        self.commandTimeoutMilliseconds = max(1, commandTimeoutMilliseconds)
        self.onStateChange = onStateChange
    }
}
