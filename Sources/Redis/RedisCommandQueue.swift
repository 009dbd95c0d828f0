import Dispatch
import Glibc

/// Sends commands to Redis from any thread without blocking the caller.
///
/// Each command goes onto a queue that a thread of its own writes, pipelined: it takes everything
/// queued, writes it all, then reads the replies in order. Completions run on that thread, in the
/// order the commands were sent; hop back to your own thread from them.
///
/// While the link is down, commands fail at once with ``RedisError`` (they are not kept for
/// later) and the thread reconnects by itself, 50 ms after a failure doubling to 1 s, selecting
/// the database after each connect. A reply that takes longer than the command timeout counts as
/// a lost link, so a hung Redis looks like a dead one; blocking commands (`BLPOP` and the like)
/// that wait longer than that do not belong on this queue.
public final class RedisCommandQueue: Sendable {
    /// Commands written per round trip; bounds the memory one batch holds.
    static let maximumBatch = 4096

    /// The server this queue talks to.
    public var address: RedisAddress { core.address }
    /// The name given at creation, used in error messages and as the Redis client name.
    public var name: String { core.name }

    private let core: CommandQueueCore
    private let thread = LinkThread()

    /// Creates a queue; nothing connects until ``start()``.
    /// - Parameters:
    ///   - address: The server and database.
    ///   - name: Names the queue in errors and logs; also sent as `CLIENT SETNAME`.
    ///   - commandTimeoutMilliseconds: The longest a connect, a write or a wait for a reply may
    ///     take before the link counts as lost.
    ///   - onStateChange: Called on the queue's thread when the link goes up or down.
    public init(
        address: RedisAddress, name: String, commandTimeoutMilliseconds: Int = 1000,
        onStateChange: @escaping @Sendable (RedisLinkState) -> Void = { _ in }
    ) {
        core = CommandQueueCore(
            address: address, name: name, commandTimeoutMilliseconds: commandTimeoutMilliseconds,
            onStateChange: onStateChange)
    }

    deinit { close() }

    /// Starts the queue's thread, which connects in the background; returns at once. Calls after
    /// the first, or after ``close()``, do nothing.
    public func start() {
        let starts = core.shared.withLock { shared in
            guard shared.phase == .created else { return false }
            shared.phase = .running
            return true
        }
        guard starts else { return }
        let core = self.core
        thread.start(name: "redis-q-\(core.name)") { CommandQueueWorker(core: core).run() }
    }

    /// Whether the link is up (connected and the database selected) right now.
    public var isConnected: Bool { core.shared.withLock { $0.connected } }

    /// Queues a command given as its words, e.g. `[Array("GET".utf8), key]`; byte-exact.
    ///
    /// The completion runs once, on the queue's thread, never inside this call: with the reply
    /// (an error reply is a `.success(.error(...))`), or with ``RedisError`` if the link is down,
    /// is lost before the reply, or the queue is closed. Completions for commands sent before
    /// ``start()`` or after ``close()`` run on a Dispatch queue instead, as the thread is not there.
    public func send(
        _ arguments: [[UInt8]],
        completion: @escaping @Sendable (Result<RedisValue, RedisError>) -> Void
    ) {
        let label = core.label
        let refusal: RedisError? = core.shared.withLock { shared in
            switch shared.phase {
            case .created:
                return RedisError(.notStarted, "not started", link: label).running(arguments)
            case .closed:
                return RedisError(.closed, "closed", link: label).running(arguments)
            case .running:
                let threadIsIdle = shared.pending.isEmpty && shared.refused.isEmpty
                if arguments.isEmpty {
                    shared.refused.append(RefusedCommand(
                        completion: completion, error: RedisError(.invalidCommand, "an empty command cannot be sent", link: label)))
                } else if shared.connected {
                    shared.pending.append(QueuedCommand(arguments: arguments, completion: completion))
                } else {
                    shared.refused.append(RefusedCommand(
                        completion: completion,
                        error: RedisError(.notConnected, "not connected; last failure: \(shared.lastFailure)", link: label)
                            .running(arguments)))
                }
                // The thread empties both lists before it waits, so one wake-up covers a burst.
                if threadIsIdle { WakeEvent.signal(shared.wakeDescriptor) }
                return nil
            }
        }
        if let refusal {
            DispatchQueue.global().async { completion(.failure(refusal)) }
        }
    }

    /// Queues a command given as text words (sent as UTF-8), e.g. `["INCR", "hits"]`.
    public func send(
        _ arguments: [String],
        completion: @escaping @Sendable (Result<RedisValue, RedisError>) -> Void
    ) {
        send(arguments.map { Array($0.utf8) }, completion: completion)
    }

    /// Stops the queue: commands not yet answered fail, the thread ends, and the link state goes
    /// to disconnected. Returns once the thread has ended (so no callback runs afterwards), except
    /// when called from one of the queue's own callbacks. Safe to call more than once.
    public func close() {
        core.shared.withLock { shared in
            shared.phase = .closed
            // Ends a read that is waiting for a reply now rather than at the timeout.
            if shared.socketDescriptor >= 0 { _ = shutdown(shared.socketDescriptor, Int32(SHUT_RDWR)) }
            WakeEvent.signal(shared.wakeDescriptor)
        }
        if !thread.isCurrent { thread.waitUntilFinished() }
    }
}
