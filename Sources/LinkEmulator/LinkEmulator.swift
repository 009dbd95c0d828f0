#if canImport(Glibc)
import Glibc
#endif
import CLinkSystem
import Synchronization

/// A TCP proxy that behaves like a real link (docs/links.md): every connection accepted on
/// `listen` is joined to a new connection to `upstream`, and the bytes of each direction are
/// held to the profile's schedule. One thread runs everything with epoll on non-blocking
/// sockets; a timerfd wakes it when the next chunk is due. A small HTTP control endpoint on
/// the same thread answers `POST /cut` and `GET /stats` (LinkControl).
///
/// `run()` blocks the calling thread until `requestStop()` (from any thread); `stats` is the
/// final state once `run()` has returned.
public final class LinkEmulator: @unchecked Sendable {
    /// Reads take at most this many bytes, so a chunk is at most one read (docs/links.md).
    static let chunkLimit = 16 * 1024
    /// The timer wakes the loop at most once per this many nanoseconds (docs/links.md).
    static let wakeQuantum: UInt64 = 250_000

    public let profile: LinkProfile
    public let seed: UInt64
    /// Where clients connect, and the control endpoint (ports resolved when 0 was asked for).
    public let listenAddress: LinkAddress
    public let controlAddress: LinkAddress?

    private let upstream: LinkSocket.Resolved
    private let listener: Int32
    private let controlListener: Int32?
    private let epoll: Int32
    private let timer: Int32
    private let wake: Int32
    private let stopRequested = Atomic<Bool>(false)

    private var connections: [Int: LinkConnection] = [:]
    private var nextID = 0
    private var due = DueHeap()
    private var armedAt: UInt64 = 0
    private var lastTimerWake: UInt64 = 0
    /// Connections with chunks released in this loop turn (each once), reused between turns.
    private var touched: [LinkConnection] = []
    private var turn: UInt64 = 0
    private var control = LinkControl()
    private var readBuffer = [UInt8](repeating: 0, count: LinkEmulator.chunkLimit)
    private let startedAt = monotonicNanoseconds()
    private var counters: LinkStats

    private enum Token: UInt64 {
        case listener, control, wake, timer, client, upstream, controlClient
    }

    /// Binds the listening sockets (so the ports are known before `run()`), without accepting yet.
    /// `control` nil: no control endpoint (the in-process emulator of `scrollcast-load`).
    public init(profile: LinkProfile, seed: UInt64, listen: LinkAddress, upstream: LinkAddress, control: LinkAddress?) throws {
        if let problem = profile.problem { throw LinkSocketError(description: problem) }
        self.profile = profile
        self.seed = seed
        counters = LinkStats(profile: profile, seed: seed)
        self.upstream = try LinkSocket.resolve(upstream, passive: false)
        let bound = try LinkSocket.listen(on: listen)
        listener = bound.fd
        listenAddress = LinkAddress(host: listen.host, port: bound.port)
        if let control {
            let controlBound = try LinkSocket.listen(on: control)
            controlListener = controlBound.fd
            controlAddress = LinkAddress(host: control.host, port: controlBound.port)
        } else {
            controlListener = nil
            controlAddress = nil
        }
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard epoll >= 0, timer >= 0, wake >= 0 else { throw LinkSocket.error("epoll setup") }
        register(listener, .listener, id: 0, mask: EPOLLIN.rawValue, op: EPOLL_CTL_ADD)
        if let controlListener { register(controlListener, .control, id: 0, mask: EPOLLIN.rawValue, op: EPOLL_CTL_ADD) }
        register(timer, .timer, id: 0, mask: EPOLLIN.rawValue, op: EPOLL_CTL_ADD)
        register(wake, .wake, id: 0, mask: EPOLLIN.rawValue, op: EPOLL_CTL_ADD)
    }

    deinit {
        for connection in connections.values { closeConnection(connection, abruptly: true) }
        control.closeAll()
        close(listener)
        if let controlListener { close(controlListener) }
        close(epoll)
        close(timer)
        close(wake)
    }

    /// Asks `run()` to return; safe from any thread.
    public func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// The counters and timing error so far (on the loop's thread, or after `run()` returned).
    public var stats: LinkStats {
        var snapshot = counters
        snapshot.open = connections.count
        snapshot.uptimeSeconds = Double(monotonicNanoseconds() - startedAt) / 1e9
        return snapshot
    }

    /// Runs the event loop until `requestStop()`. With `raisePriority` the thread first asks to
    /// run ahead of ordinary ones (nice −10), so that on a machine busy with the server and the
    /// load the emulator wakes on time; `stats.raisedPriority` says whether it was granted (it
    /// needs CAP_SYS_NICE). The emulator uses a fraction of a core, so it takes little from them.
    public func run(raisePriority: Bool = false) {
        if raisePriority { counters.raisedPriority = clink_set_thread_nice(-10) == 0 }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopRequested.load(ordering: .acquiring) {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            let woke = monotonicNanoseconds()
            for index in 0..<Int(count) {
                let data = events[index].data.u64
                handle(token: Token(rawValue: data & 7) ?? .wake, id: Int(data >> 3), events: events[index].events)
            }
            releaseDue()
            counters.loopTurns.record(microseconds: (monotonicNanoseconds() - woke) / 1000)
        }
        counters.cpuSeconds = threadCPUSeconds()
    }

    /// Cuts every open connection at once (both ends see a reset); returns how many.
    @discardableResult
    func cutAll() -> Int {
        let all = Array(connections.values)
        for connection in all { closeConnection(connection, abruptly: true) }
        counters.cut += all.count
        return all.count
    }

    // MARK: events

    private func handle(token: Token, id: Int, events: UInt32) {
        switch token {
        case .listener: acceptClients()
        case .control: control.accept(from: controlListener!, register: { self.register($0, .controlClient, id: Int($0), mask: EPOLLIN.rawValue, op: EPOLL_CTL_ADD) })
        case .controlClient:
            control.readable(fd: Int32(id)) { request in
                switch request {
                case .cut: return "{\"cut\": \(self.cutAll())}"
                case .stats:
                    self.counters.cpuSeconds = threadCPUSeconds()
                    return self.stats.json()
                }
            }
        case .wake:
            var value: UInt64 = 0
            _ = read(wake, &value, 8)
        case .timer:
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, 8)
            armedAt = 0
            lastTimerWake = monotonicNanoseconds()
        case .client, .upstream:
            guard let connection = connections[id] else { return }
            handle(connection, isClient: token == .client, events: events)
        }
    }

    private func acceptClients() {
        while true {
            let client = clink_accept_nonblocking(listener)
            if client < 0 { return }  // EAGAIN, or a connection gone before it was accepted
            counters.accepted += 1
            guard let upstreamFD = LinkSocket.startConnect(to: upstream) else {
                counters.upstreamFailures += 1
                LinkSocket.closeAbruptly(client)
                continue
            }
            LinkSocket.setNoDelay(client)
            LinkSocket.setNoDelay(upstreamFD)
            nextID += 1
            let connection = LinkConnection(id: nextID, client: client, upstream: upstreamFD, profile: profile, seed: seed)
            connections[nextID] = connection
            updateInterest(connection)
        }
    }

    private func handle(_ connection: LinkConnection, isClient: Bool, events: UInt32) {
        if events & EPOLLERR.rawValue != 0 {
            if !isClient, !connection.upstreamConnected { counters.upstreamFailures += 1 }
            return closeConnection(connection, abruptly: true)
        }
        if !isClient, !connection.upstreamConnected {
            guard LinkSocket.pendingError(connection.upstream) == 0 else {
                counters.upstreamFailures += 1
                return closeConnection(connection, abruptly: true)
            }
            connection.upstreamConnected = true
        }
        let readDirection = isClient ? 0 : 1
        let writeDirection = 1 - readDirection
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue) != 0, !connection.flows[readDirection].sourceEnded {
            guard readChunks(connection, direction: readDirection) else { return closeConnection(connection, abruptly: true) }
        }
        for direction in [writeDirection, readDirection] {
            guard flush(connection, direction: direction) else { return closeConnection(connection, abruptly: true) }
        }
        finishIfDone(connection)
    }

    /// Reads what the source has (a few chunks, for fairness); false when the source failed.
    private func readChunks(_ connection: LinkConnection, direction: Int) -> Bool {
        let flow = connection.flows[direction]
        let fd = connection.source(of: direction)
        for _ in 0..<8 {
            let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 {
                flow.sourceEnded = true
                return true
            }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            let drained = count < readBuffer.count  // a short read: nothing more waits, skip the EAGAIN read
            counters.bytes[direction] += UInt64(count)
            counters.chunks[direction] += 1
            if profile.isPassThrough {
                readBuffer.withUnsafeBytes { flow.passThrough(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            } else {
                let now = monotonicNanoseconds()
                let release = flow.schedule.release(bytes: count, now: now)
                if release.stalled { counters.stalls[direction] += 1 }
                flow.enqueue(Array(readBuffer[0..<count]), at: release.at)
                due.push(.init(at: release.at, connection: connection.id, direction: direction))
            }
            if flow.pending > LinkFlow.pauseAbove {
                flow.paused = true
                return true
            }
            if drained { return true }
        }
        return true
    }

    /// Writes a flow's released bytes; passes its end on once drained. False when the destination failed.
    private func flush(_ connection: LinkConnection, direction: Int) -> Bool {
        let flow = connection.flows[direction]
        if direction == 0, !connection.upstreamConnected { return true }
        guard flow.flush(to: connection.destination(of: direction)) else { return false }
        if flow.paused, flow.pending < LinkFlow.pauseAbove / 2 { flow.paused = false }
        if flow.drained, !flow.shutDown {
            flow.shutDown = true
            shutdown(connection.destination(of: direction), Int32(SHUT_WR))
        }
        return true
    }

    /// Closes a connection whose both directions have ended; otherwise updates its interest.
    private func finishIfDone(_ connection: LinkConnection) {
        if connection.flows[0].shutDown, connection.flows[1].shutDown {
            closeConnection(connection, abruptly: false)
        } else {
            updateInterest(connection)
        }
    }

    /// Releases every chunk now due, records how late each was, and re-arms the timer.
    private func releaseDue() {
        let now = monotonicNanoseconds()
        turn &+= 1
        touched.removeAll(keepingCapacity: true)
        while let entry = due.popDue(now: now) {
            guard let connection = connections[entry.connection] else { continue }
            connection.flows[entry.direction].release(now: now) { lateness in
                counters.timingError.record(microseconds: lateness / 1000)
            }
            if connection.releasedInTurn != turn {
                connection.releasedInTurn = turn
                touched.append(connection)
            }
        }
        for connection in touched {
            guard flush(connection, direction: 0), flush(connection, direction: 1) else {
                closeConnection(connection, abruptly: true)
                continue
            }
            finishIfDone(connection)
        }
        armTimer()
    }

    private func armTimer() {
        // At most one timer wake-up per quantum: under load, chunks due close together are
        // released together (each up to a quantum late, which the timing error shows) instead
        // of costing a wake-up each.
        guard let earliest = due.earliest else { return }
        let next = max(earliest, lastTimerWake &+ Self.wakeQuantum)
        guard next != armedAt else { return }
        armedAt = next
        var spec = itimerspec()
        spec.it_value = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
        timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    // MARK: bookkeeping

    private func updateInterest(_ connection: LinkConnection) {
        let wanted = connection.wantedMasks()
        if wanted.client != connection.clientMask || !connection.clientRegistered {
            register(connection.client, .client, id: connection.id, mask: wanted.client,
                     op: connection.clientRegistered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD)
            connection.clientMask = wanted.client
            connection.clientRegistered = true
        }
        if wanted.upstream != connection.upstreamMask || !connection.upstreamRegistered {
            register(connection.upstream, .upstream, id: connection.id, mask: wanted.upstream,
                     op: connection.upstreamRegistered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD)
            connection.upstreamMask = wanted.upstream
            connection.upstreamRegistered = true
        }
    }

    private func register(_ fd: Int32, _ token: Token, id: Int, mask: UInt32, op: Int32) {
        var event = epoll_event()
        event.events = mask
        event.data.u64 = UInt64(id) << 3 | token.rawValue
        epoll_ctl(epoll, op, fd, &event)
    }

    private func closeConnection(_ connection: LinkConnection, abruptly: Bool) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        for fd in [connection.client, connection.upstream] {
            if abruptly { LinkSocket.closeAbruptly(fd) } else { close(fd) }
        }
    }
}
