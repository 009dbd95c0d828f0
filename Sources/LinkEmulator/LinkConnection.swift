#if canImport(Glibc)
import Glibc
#endif
import CLinkSystem

/// One direction of one proxied connection: chunks read from its source wait in `queue` until
/// their release time, then go to `outbound`, which is written to its destination as the
/// destination accepts bytes.
final class LinkFlow {
    /// Above this many bytes waiting (queued or unwritten) the source is not read, as a full
    /// TCP window would stop the sender; reading resumes below half of it.
    static let pauseAbove = 1 << 20

    var schedule: DirectionSchedule
    private(set) var queue: [(bytes: [UInt8], at: UInt64)] = []
    private var queueHead = 0
    private var outbound: [UInt8] = []
    private var written = 0
    /// Bytes queued or not yet written.
    private(set) var pending = 0
    var paused = false
    var sourceEnded = false
    var shutDown = false

    init(schedule: DirectionSchedule) { self.schedule = schedule }

    var hasQueued: Bool { queueHead < queue.count }
    var hasUnwritten: Bool { written < outbound.count }
    /// The source ended and every byte has been written on: time to pass the end on.
    var drained: Bool { sourceEnded && !hasQueued && !hasUnwritten }

    /// Holds a chunk until `at`.
    func enqueue(_ bytes: [UInt8], at: UInt64) {
        queue.append((bytes, at))
        pending += bytes.count
    }

    /// Passes a chunk straight to the outbound bytes (no schedule).
    func passThrough(_ bytes: UnsafeRawBufferPointer) {
        outbound.append(contentsOf: bytes)
        pending += bytes.count
    }

    /// Moves every chunk due at `now` to the outbound bytes; `late` gets each one's lateness in ns.
    func release(now: UInt64, late: (UInt64) -> Void) {
        while queueHead < queue.count, queue[queueHead].at <= now {
            outbound.append(contentsOf: queue[queueHead].bytes)
            late(now - queue[queueHead].at)
            queue[queueHead].bytes = []
            queueHead += 1
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 64, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// Writes what it can to `fd`; returns false when the destination failed for good.
    func flush(to fd: Int32) -> Bool {
        while written < outbound.count {
            let count = outbound.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            written += count
            pending -= count
        }
        outbound.removeAll(keepingCapacity: outbound.capacity <= 1 << 16)
        written = 0
        return true
    }
}

/// A client connection and its upstream connection, and the two flows between them:
/// `flows[0]` up (client → upstream), `flows[1]` down (upstream → client).
final class LinkConnection {
    let id: Int
    let client: Int32
    let upstream: Int32
    var upstreamConnected = false
    let flows: [LinkFlow]
    /// The epoll interest each descriptor is registered with now.
    var clientMask: UInt32 = 0
    var upstreamMask: UInt32 = 0
    /// Whether each descriptor was added to epoll yet (a mask of 0 can still be registered).
    var clientRegistered = false
    var upstreamRegistered = false
    /// The emulator's loop turn in which chunks of this connection were last released.
    var releasedInTurn: UInt64 = 0

    init(id: Int, client: Int32, upstream: Int32, profile: LinkProfile, seed: UInt64) {
        self.id = id
        self.client = client
        self.upstream = upstream
        flows = (0..<2).map { direction in
            LinkFlow(schedule: DirectionSchedule(profile: profile, seed: seed, connection: UInt64(id), direction: UInt64(direction)))
        }
    }

    /// The descriptor a flow reads from and the one it writes to.
    func source(of direction: Int) -> Int32 { direction == 0 ? client : upstream }
    func destination(of direction: Int) -> Int32 { direction == 0 ? upstream : client }

    /// What each descriptor should wait for, given the flows' state.
    func wantedMasks() -> (client: UInt32, upstream: UInt32) {
        let input = EPOLLIN.rawValue
        var clientMask: UInt32 = 0
        var upstreamMask: UInt32 = 0
        if !flows[0].sourceEnded, !flows[0].paused { clientMask |= input }
        if flows[1].hasUnwritten { clientMask |= EPOLLOUT.rawValue }
        if !upstreamConnected {
            upstreamMask = EPOLLOUT.rawValue
        } else {
            if !flows[1].sourceEnded, !flows[1].paused { upstreamMask |= input }
            if flows[0].hasUnwritten { upstreamMask |= EPOLLOUT.rawValue }
        }
        return (clientMask, upstreamMask)
    }
}
