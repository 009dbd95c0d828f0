import Glibc

/// The loop on a ``RedisCommandQueue``'s thread: connect, write batches, read replies, reconnect.
/// Everything here belongs to that thread; other threads reach it only through the core's lock.
final class CommandQueueWorker {
    private let core: CommandQueueCore
    private var connection: HiredisConnection?
    private var wakeDescriptor: Int32 = -1
    private var reporter: LinkStateReporter
    private var backoff = Backoff()

    init(core: CommandQueueCore) {
        self.core = core
        self.reporter = LinkStateReporter(core.onStateChange)
    }

    func run() {
        while !isClosing {
            if wakeDescriptor < 0 {
                guard createWakeEvent() else { continue }
            }
            if connection == nil {
                deliverRefused()
                guard connect() else {
                    waitForRetry()
                    continue
                }
            }
            serveOnce()
        }
        finish()
    }

    private var isClosing: Bool { core.shared.withLock { $0.phase == .closed } }

    /// Without an eventfd the thread cannot be woken, so it keeps trying (file descriptors can run
    /// out for a while) and reports the link as down meanwhile.
    private func createWakeEvent() -> Bool {
        do throws(RedisError) {
            let descriptor = try WakeEvent.create(label: core.label)
            wakeDescriptor = descriptor
            core.shared.withLock { $0.wakeDescriptor = descriptor }
            return true
        } catch {
            core.noteFailure(error)
            reporter.report(.disconnected(reason: error.description))
            deliverRefused()
            _ = poll(nil, 0, Int32(backoff.next()))
            return false
        }
    }

    private func connect() -> Bool {
        do throws(RedisError) {
            let connection = try HiredisConnection.connect(
                to: core.address, label: core.label, timeoutMilliseconds: core.commandTimeoutMilliseconds)
            if core.address.database != 0 {
                let reply = try connection.command(["SELECT", String(core.address.database)])
                if case .error = reply {
                    throw RedisError(.errorReply, "database \(core.address.database) refused", link: core.label,
                                     command: "SELECT", reply: reply.kindDescription)
                }
            }
            // Only a label for CLIENT LIST; a refusal is no reason to drop the link.
            _ = try connection.command(["CLIENT", "SETNAME", ClientName.sanitized(core.name)])
            let opened = core.shared.withLock { shared in
                guard shared.phase != .closed else { return false }
                shared.connected = true
                shared.socketDescriptor = connection.fileDescriptor
                return true
            }
            guard opened else { return false }
            self.connection = connection
            backoff.reset()
            reporter.report(.connected)
            return true
        } catch {
            core.noteFailure(error)
            reporter.report(.disconnected(reason: error.description))
            return false
        }
    }

    /// Sleeps the backoff delay; commands refused meanwhile still fail promptly.
    private func waitForRetry() {
        WakeEvent.sleep(wakeDescriptor, milliseconds: backoff.next(), isClosing: { isClosing }, woken: deliverRefused)
    }

    /// Runs one batch if commands are waiting, otherwise waits for commands or for the socket.
    private func serveOnce() {
        let (batch, refused) = core.shared.withLock { shared in
            let count = min(shared.pending.count, RedisCommandQueue.maximumBatch)
            let batch = Array(shared.pending.prefix(count))
            shared.pending.removeFirst(count)
            let refused = shared.refused
            shared.refused.removeAll()
            return (batch, refused)
        }
        // Refused commands were sent before anything still pending, so they complete first.
        for command in refused { command.completion(.failure(command.error)) }
        if batch.isEmpty {
            waitWhileIdle()
        } else {
            execute(batch)
        }
    }

    /// Also watches the socket: Redis sends nothing unasked, so readable means closed or broken,
    /// and the owner hears of it now rather than at the next command.
    private func waitWhileIdle() {
        guard let connection else { return }
        var events = [
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        guard poll(&events, 2, -1) > 0 else { return }
        if events[0].revents != 0 { WakeEvent.drain(wakeDescriptor) }
        guard events[1].revents != 0, !isClosing else { return }
        do throws(RedisError) {
            try connection.readAvailable()
            let unexpected = try connection.bufferedReply()
            linkLost(RedisError(.protocolError, "Redis sent data no command asked for", link: core.label,
                                reply: unexpected?.kindDescription ?? "a partial reply"))
        } catch {
            linkLost(error)
        }
    }

    /// Writes the whole batch, then reads the replies in order; on a failure, this command and
    /// the rest of the batch fail with it and the link is dropped.
    private func execute(_ batch: [QueuedCommand]) {
        guard let connection else { return }
        var failure: RedisError?
        var answered = 0
        do throws(RedisError) {
            for command in batch { try connection.append(command.arguments) }
            while answered < batch.count {
                let reply = try connection.readReply()
                batch[answered].completion(.success(reply))
                answered += 1
            }
        } catch {
            failure = isClosing ? RedisError(.closed, "closed before the reply came", link: core.label) : error
        }
        guard let failure else { return }
        // Each command of the batch left unanswered fails with the link's failure, under its own name.
        for command in batch[answered...] { command.completion(.failure(failure.running(command.arguments))) }
        linkLost(failure)
    }

    /// Frees the context and fails what was queued behind the failed batch (it was accepted while
    /// the link was up, but will never be sent on it).
    private func linkLost(_ error: RedisError) {
        core.noteFailure(error)
        let stranded = core.shared.withLock { shared in
            shared.connected = false
            shared.socketDescriptor = -1
            let stranded = shared.pending
            shared.pending.removeAll()
            return stranded
        }
        connection = nil
        let notSent = RedisError(.io, "not sent, the link was lost: \(error.message)", link: core.label)
        for command in stranded { command.completion(.failure(notSent.running(command.arguments))) }
        reporter.report(.disconnected(reason: error.description))
    }

    private func deliverRefused() {
        let refused = core.shared.withLock { shared in
            let refused = shared.refused
            shared.refused.removeAll()
            return refused
        }
        for command in refused { command.completion(.failure(command.error)) }
    }

    /// Fails everything still waiting, reports the link down, and gives back the eventfd.
    private func finish() {
        let (pending, refused) = core.shared.withLock { shared in
            shared.connected = false
            shared.socketDescriptor = -1
            shared.lastFailure = "closed"
            if shared.wakeDescriptor >= 0 { Glibc.close(shared.wakeDescriptor) }
            shared.wakeDescriptor = -1
            let taken = (shared.pending, shared.refused)
            shared.pending.removeAll()
            shared.refused.removeAll()
            return taken
        }
        wakeDescriptor = -1
        connection = nil
        for command in refused { command.completion(.failure(command.error)) }
        let closed = RedisError(.closed, "closed before the command was sent", link: core.label)
        for command in pending { command.completion(.failure(closed.running(command.arguments))) }
        reporter.report(.disconnected(reason: "closed"))
    }
}
