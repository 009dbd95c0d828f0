import Glibc

/// The loop on a ``RedisSubscriber``'s thread: connect, keep Redis subscribed to the wanted
/// channels, hand messages over, check a silent link, reconnect. Everything here belongs to that
/// thread; other threads reach it only through the core's lock.
///
/// It waits in poll(2) on the socket and an eventfd, never in a blocking read: a read that hits
/// the socket timeout leaves a hiredis 0.14 context in an error state for good.
final class SubscriberWorker {
    private let core: SubscriberCore
    private var connection: HiredisConnection?
    private var wakeDescriptor: Int32 = -1
    private var reporter: LinkStateReporter
    private var backoff = Backoff()
    /// The channels this link has sent SUBSCRIBE for and not UNSUBSCRIBE since.
    private var requested: Set<String> = []
    /// Channels wanted at connect time and not yet confirmed; `.connected` waits for them.
    private var awaitingConfirmation: Set<String> = []
    private var lastActivity = ContinuousClock.now
    private var pingSentAt: ContinuousClock.Instant?

    init(core: SubscriberCore) {
        self.core = core
        self.reporter = LinkStateReporter(core.onStateChange)
    }

    func run() {
        while !isClosing {
            if wakeDescriptor < 0 {
                guard createWakeEvent() else { continue }
            }
            if connection == nil {
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

    private var timeout: Duration { .milliseconds(core.timeoutMilliseconds) }

    /// Without an eventfd the thread cannot be woken, so it keeps trying (file descriptors can run
    /// out for a while) and reports the link as down meanwhile.
    private func createWakeEvent() -> Bool {
        do throws(RedisError) {
            let descriptor = try WakeEvent.create(label: core.label)
            wakeDescriptor = descriptor
            core.shared.withLock { $0.wakeDescriptor = descriptor }
            return true
        } catch {
            reporter.report(.disconnected(reason: error.description))
            _ = poll(nil, 0, Int32(backoff.next()))
            return false
        }
    }

    private func connect() -> Bool {
        do throws(RedisError) {
            let connection = try HiredisConnection.connect(
                to: core.address, label: core.label, timeoutMilliseconds: core.timeoutMilliseconds)
            // Only a label for CLIENT LIST; a refusal is no reason to drop the link.
            _ = try connection.command(["CLIENT", "SETNAME", ClientName.sanitized(core.name)])
            let wanted: Set<String>? = core.shared.withLock { shared in
                guard shared.phase != .closed else { return nil }
                shared.socketDescriptor = connection.fileDescriptor
                return shared.wanted
            }
            guard let wanted else { return false }
            self.connection = connection
            requested = []
            awaitingConfirmation = wanted
            lastActivity = .now
            pingSentAt = nil
            try synchroniseSubscriptions()
            if awaitingConfirmation.isEmpty { markConnected() }
            return true
        } catch {
            if self.connection != nil {
                linkLost(error)
            } else {
                reporter.report(.disconnected(reason: error.description))
            }
            return false
        }
    }

    /// Sleeps the backoff delay.
    private func waitForRetry() {
        WakeEvent.sleep(wakeDescriptor, milliseconds: backoff.next(), isClosing: { isClosing })
    }

    /// Waits for the socket, a wake-up or the next health-check moment, and handles what came.
    private func serveOnce() {
        guard let connection else { return }
        var events = [
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&events, 2, Int32(clamping: millisecondsUntilHealthCheck()))
        guard !isClosing else { return }
        do throws(RedisError) {
            if ready > 0 && events[0].revents != 0 {
                WakeEvent.drain(wakeDescriptor)
                try synchroniseSubscriptions()
            }
            if ready > 0 && events[1].revents != 0 {
                try connection.readAvailable()
                lastActivity = .now
                pingSentAt = nil
                while self.connection != nil, let reply = try connection.bufferedReply() {
                    try handle(reply)
                }
            }
            if self.connection != nil { try checkHealth() }
        } catch {
            linkLost(error)
        }
    }

    /// Sends SUBSCRIBE for wanted channels not yet asked for and UNSUBSCRIBE for dropped ones.
    private func synchroniseSubscriptions() throws(RedisError) {
        guard let connection else { return }
        let wanted = core.shared.withLock { $0.wanted }
        let added = wanted.subtracting(requested).sorted()
        let removed = requested.subtracting(wanted).sorted()
        guard !added.isEmpty || !removed.isEmpty else { return }
        // Never an UNSUBSCRIBE without channels: that would drop every subscription.
        if !added.isEmpty { try connection.append([Array("SUBSCRIBE".utf8)] + added.map { Array($0.utf8) }) }
        if !removed.isEmpty { try connection.append([Array("UNSUBSCRIBE".utf8)] + removed.map { Array($0.utf8) }) }
        try connection.flush()
        requested.formUnion(added)
        requested.subtract(removed)
    }

    private func handle(_ reply: RedisValue) throws(RedisError) {
        switch reply {
        case .array(let parts):
            guard let kind = parts.first?.text else { break }
            let channel = parts.count > 1 ? String(decoding: parts[1].bytes ?? [], as: UTF8.self) : ""
            switch kind {
            case "message":
                guard parts.count == 3, let payload = parts[2].bytes else {
                    throw RedisError(.unexpectedReply, "a malformed message", link: core.label, command: "SUBSCRIBE",
                                     reply: "array of \(parts.count)" + (parts.count > 2 ? ", payload \(parts[2].kindDescription)" : ""))
                }
                // A message may still be in flight after unsubscribe() returned; it is not wanted.
                if core.shared.withLock({ $0.wanted.contains(channel) }) { core.onMessage(channel, payload) }
            case "subscribe":
                core.shared.withLock { _ = $0.confirmed.insert(channel) }
                core.onSubscribed(channel)
                if awaitingConfirmation.remove(channel) != nil && awaitingConfirmation.isEmpty {
                    markConnected()
                }
            case "unsubscribe":
                core.shared.withLock { _ = $0.confirmed.remove(channel) }
            default:
                break  // "pong" (a PING while subscribed): the read itself proved the link alive.
            }
        case .error:
            throw RedisError(.errorReply, "Redis refused a subscriber command", link: core.label, reply: reply.kindDescription)
        default:
            break  // "+PONG": a PING while subscribed to nothing.
        }
    }

    private func markConnected() {
        core.shared.withLock { $0.connected = true }
        // Reset only here: a server that accepts and then drops us must not be retried in a loop.
        backoff.reset()
        reporter.report(.connected)
    }

    /// A PING after a silence of one timeout; the link is lost if it goes unanswered for another.
    private func checkHealth() throws(RedisError) {
        guard let connection else { return }
        let now = ContinuousClock.now
        if let pingSentAt {
            if pingSentAt.duration(to: now) >= timeout {
                throw RedisError(.timeout, "no reply within \(core.timeoutMilliseconds) ms", link: core.label, command: "PING")
            }
        } else if lastActivity.duration(to: now) >= timeout {
            try connection.append([Array("PING".utf8)])
            try connection.flush()
            pingSentAt = now
        }
    }

    private func millisecondsUntilHealthCheck() -> Int {
        let due = (pingSentAt ?? lastActivity) + timeout
        return max(0, ContinuousClock.now.duration(to: due).roundedUpMilliseconds)
    }

    private func linkLost(_ error: RedisError) {
        core.shared.withLock { shared in
            shared.connected = false
            shared.confirmed.removeAll()
            shared.socketDescriptor = -1
        }
        connection = nil
        requested = []
        awaitingConfirmation = []
        let reason = isClosing ? "closed" : error.description
        reporter.report(.disconnected(reason: reason))
    }

    /// Reports the link down and gives back the eventfd.
    private func finish() {
        core.shared.withLock { shared in
            shared.connected = false
            shared.confirmed.removeAll()
            shared.socketDescriptor = -1
            if shared.wakeDescriptor >= 0 { Glibc.close(shared.wakeDescriptor) }
            shared.wakeDescriptor = -1
        }
        wakeDescriptor = -1
        connection = nil
        reporter.report(.disconnected(reason: "closed"))
    }
}
