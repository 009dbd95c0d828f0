internal import CLibWebSockets
internal import CWebSocketsShim
import Dispatch
import Glibc
import Synchronization

/// One libwebsockets context and the single thread that services it.
///
/// Every lws call happens on that thread. Other threads hand it closures through a locked queue and
/// wake it with `lws_cancel_service`, the one lws call documented as thread-safe.
///
/// The thread waits in epoll (`scws_context_service`: lws's libev plugin on a loop the C bundle
/// owns), so a pass costs the sockets that are ready rather than a `poll()` over all of them;
/// SCROLLCAST_EVENT_LOOP=poll selects lws's own `poll()` loop instead (docs/design.md, Transport).
final class ServiceLoop: @unchecked Sendable {
    private struct Shared {
        var jobs: [@Sendable () -> Void] = []
        /// Non-nil while the context exists; read under the lock so a wake-up never races destroy.
        var lws: OpaquePointer?
        var accepting = false
    }

    private let shared = Mutex(Shared())
    private let name: String
    /// Set on the service thread before `start` returns; read-only afterwards.
    private var serviceThread: pthread_t?
    /// The bundle that owns the context (service thread only).
    private(set) var bundle: OpaquePointer?
    /// The lws context (service thread only).
    private(set) var lws: OpaquePointer?
    private var stopRequested = false
    private let stopped = DispatchSemaphore(value: 0)
    private var hasStarted = false
    private var nextTimerID: UInt64 = 0
    private var timers: [UInt64: (node: UnsafeMutablePointer<scws_timer>, due: UInt64, work: () -> Void)] = [:]
    /// How late (monotonic nanoseconds after its due time) the last timer fired: how far behind the
    /// loop was then. A loop that keeps up fires its timers within a millisecond or so; one with
    /// more work than time fires them later and later (service thread only).
    private(set) var lastTimerLatenessNanoseconds: UInt64 = 0
    /// Whether the last service pass ran anything (a callback, a timer, a job): only a pass that
    /// found nothing to do is followed by a sleep, so a busy loop never sleeps past ready sockets.
    var passDidWork = false
    /// Runs on the service thread right before the context is destroyed.
    var willDestroy: (() -> Void)?

    init(name: String) {
        self.name = name
        LibWebSocketsLog.installDefaultOnce()
    }

    /// Whether the context waits in epoll (false: lws's own `poll()` loop); fixed once `start`
    /// returned (set on the service thread before it signals).
    private(set) var usesEpoll = false

    /// Whether the caller is this loop's service thread.
    var isOnServiceThread: Bool {
        guard let serviceThread else { return false }
        return pthread_equal(pthread_self(), serviceThread) != 0
    }

    /// Starts the thread, creates the context on it with `create`, and returns what `create` said.
    /// `create` returns the bundle or an error; on error the thread ends.
    func start(create: @escaping @Sendable () -> Result<OpaquePointer, WebSocketError>) throws {
        if hasStarted { throw WebSocketError(.alreadyStarted, "\(name): start() was already called") }
        hasStarted = true
        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<OpaquePointer, WebSocketError>?
        let body: () -> Void = { [self] in
            scws_name_current_thread(name)
            serviceThread = pthread_self()
            let result = create()
            outcome = result
            guard case .success(let bundle) = result else {
                ready.signal()
                stopped.signal()
                return
            }
            self.bundle = bundle
            self.lws = scws_context_lws(bundle)
            self.usesEpoll = scws_context_uses_epoll(bundle) != 0
            shared.withLock {
                $0.lws = self.lws
                $0.accepting = true
            }
            ready.signal()
            run()
        }
        try ServiceLoop.spawnThread(named: name, body)
        ready.wait()
        if case .failure(let error) = outcome { throw error }
    }

    /// A plain detached pthread (1 MiB stack) running `body`.
    private static func spawnThread(named name: String, _ body: @escaping () -> Void) throws {
        final class Box {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 1 << 20)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw WebSocketError(.contextCreationFailed, "\(name): could not start the service thread (error \(result))")
        }
    }

    private func run() {
        while !stopRequested {
            if !passDidWork { sleepThroughSubMillisecondWait() }
            passDidWork = false
            _ = scws_context_service(bundle)
            drainJobs()
        }
        shared.withLock {
            $0.lws = nil
            $0.accepting = false
        }
        drainJobs()
        // Owners report their remaining connections closed now, so nothing reaches delegates (who
        // might send) while lws tears the context down.
        willDestroy?()
        let doomed = bundle
        bundle = nil
        lws = nil
        scws_context_destroy(doomed)
        for (_, timer) in timers { timer.node.deallocate() }
        timers.removeAll()
        stopped.signal()
    }

    /// Sleeps until the next timer when it is due in less than a millisecond and the last pass
    /// found nothing to do.
    ///
    /// lws 4.1 hands `poll()` its wait in whole milliseconds, rounded down, so a timer due in
    /// 0.4 ms made it call `poll(…, 0)` over every socket again and again until the timer was ripe:
    /// at 10 rooms × 10 viewers most of the server's `poll()` calls were such spins
    /// (bench/where-the-time-goes.md §8). Sleeping the
    /// rest instead delays a message that arrives meanwhile by under a millisecond, no more than
    /// lws's millisecond timeouts already do. Only after an empty pass: sleeping after every pass
    /// coincided with a several times higher p99 input-to-frame at 1,000 viewers (§8 there).
    /// The epoll loop does not spin (libev waits at least a millisecond for a nonzero timeout), but
    /// would fire such a timer up to a millisecond late; the sleep keeps it on time there too.
    private func sleepThroughSubMillisecondWait() {
        guard let due = timers.values.lazy.map({ $0.due }).min() else { return }
        let now = ServiceLoop.monotonicNanoseconds()
        guard due > now, due - now < 1_000_000 else { return }
        var wait = timespec(tv_sec: 0, tv_nsec: Int(due - now))
        nanosleep(&wait, nil)
    }

    /// Runs queued closures; called from EVENT_WAIT_CANCELLED and after each service pass.
    func drainJobs() {
        let jobs = shared.withLock { shared -> [@Sendable () -> Void] in
            let jobs = shared.jobs
            shared.jobs.removeAll()
            return jobs
        }
        if !jobs.isEmpty { passDidWork = true }
        for job in jobs { job() }
    }

    /// Queues `work` for the service thread and wakes it. Returns false if the loop is not running.
    @discardableResult
    func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        shared.withLock { shared in
            guard shared.accepting, let lws = shared.lws else { return false }
            let needsWake = shared.jobs.isEmpty
            shared.jobs.append(work)
            // A non-empty queue already has a wake-up on its way.
            if needsWake { lws_cancel_service(lws) }
            return true
        }
    }

    /// Makes the loop end after the current pass (service thread only).
    func requestStop() {
        precondition(isOnServiceThread, "\(name): requestStop off the service thread")
        guard !stopRequested else { return }
        stopRequested = true
        shared.withLock { $0.accepting = false }
        if let lws { lws_cancel_service(lws) }
    }

    /// Blocks until the service thread has destroyed the context.
    func waitUntilStopped() {
        stopped.wait()
        stopped.signal()
    }

    /// One-shot timer on the service thread (lws_sul_schedule). Returns its id for
    /// `cancelTimer` (0 when the loop is stopping and nothing was scheduled).
    @discardableResult
    func schedule(afterMilliseconds ms: Double, _ work: @escaping () -> Void) -> UInt64 {
        precondition(isOnServiceThread, "\(name): schedule must be called on the service thread")
        guard let lws, !stopRequested else { return 0 }
        nextTimerID += 1
        let id = nextTimerID
        let node = UnsafeMutablePointer<scws_timer>.allocate(capacity: 1)
        node.initialize(to: scws_timer())
        node.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        node.pointee.id = id
        let microseconds = lws_usec_t(max(0, ms) * 1000)
        timers[id] = (node, ServiceLoop.monotonicNanoseconds() + UInt64(microseconds) * 1000, work)
        lws_sul_schedule(lws, 0, &node.pointee.sul, serviceLoopTimerFired, microseconds)
        return id
    }

    /// Takes timer `id` off lws's list before it fires; nothing if it fired already or was
    /// never scheduled (service thread only).
    func cancelTimer(_ id: UInt64) {
        precondition(isOnServiceThread, "\(name): cancelTimer must be called on the service thread")
        guard let timer = timers.removeValue(forKey: id) else { return }
        lws_sul_cancel(&timer.node.pointee.sul)
        timer.node.deallocate()
    }

    fileprivate func timerFired(id: UInt64) {
        guard let timer = timers.removeValue(forKey: id) else { return }
        passDidWork = true
        let now = ServiceLoop.monotonicNanoseconds()
        lastTimerLatenessNanoseconds = now > timer.due ? now - timer.due : 0
        timer.node.deallocate()
        timer.work()
    }
}

extension ServiceLoop {
    /// CLOCK_MONOTONIC in nanoseconds (a vDSO call, no system call).
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// The C timer callback: recovers the loop from the node's neighbour field.
private func serviceLoopTimerFired(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul, let timer = scws_timer_from_sul(sul), let owner = timer.pointee.owner else { return }
    let loop = Unmanaged<ServiceLoop>.fromOpaque(owner).takeUnretainedValue()
    loop.timerFired(id: timer.pointee.id)
}
