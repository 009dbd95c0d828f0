import Dispatch
import Synchronization

/// The bounded queue from a recording export's worker (lowest priority) to its relay (normal
/// priority), and the worker's side of it as an `HTTPBodyWriter`.
///
/// Why a relay: the transport's stream, the service loop's job queue and the metrics take locks
/// the room thread takes too. A worker at low priority preempted while holding one of them would stall
/// the room thread until the scheduler ran the worker again (for how long: docs/recording.md,
/// "Downloading"). So the worker touches only this queue, whose lock only the relay shares, and
/// the relay, at the room thread's own priority, does everything the room thread might wait on.
final class RecordingExportHandoff: Sendable {
    /// What the worker hands over, in order.
    enum Event: Sendable {
        case begin(status: Int, contentType: String, headers: [(String, String)])
        case piece([UInt8])
        case finish
        case abort
    }

    private struct State {
        var events: [Event] = []
        /// The relay stopped taking (the client went away): the worker's next `put` says so.
        var closed = false
        /// Pieces the relay has copied, for the worker to fill again: with the server's 16 KiB
        /// mmap threshold (MemoryTuning) a new piece is a page mapping, and a worker preempted
        /// in `mmap` holds the process's address-space lock, which the room thread needs too.
        var spare: [[UInt8]] = []
        var spareLimit = 0
    }

    private let state = Mutex(State())
    /// Free places. Made at 0 and raised to the capacity, so however many places are taken when
    /// the queue goes away, the semaphore is never below its starting value (libdispatch traps).
    private let places = DispatchSemaphore(value: 0)
    private let ready = DispatchSemaphore(value: 0)
    private let workerEnded = DispatchSemaphore(value: 0)

    /// A queue of at most `capacity` events (pieces: `capacity` × the piece size in bytes), with
    /// `spares` empty pieces of `pieceCapacity` bytes made here (on the relay) for the worker.
    init(capacity: Int, spares: Int, pieceCapacity: Int) {
        for _ in 0..<capacity { places.signal() }
        state.withLock { state in
            for _ in 0..<spares {
                var piece: [UInt8] = []
                piece.reserveCapacity(pieceCapacity)
                state.spare.append(piece)
            }
            state.spareLimit = spares
        }
    }

    /// Worker: hands `event` over, waiting for a free place. False once the relay has stopped.
    func put(_ event: Event) -> Bool {
        places.wait()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.events.append(event)
            return true
        }
        if accepted { ready.signal() } else { places.signal() }
        return accepted
    }

    /// Worker: an empty piece buffer, a spare one when the relay has given one back.
    func emptyPiece(capacity: Int) -> [UInt8] {
        if var piece = state.withLock({ $0.spare.popLast() }) {
            piece.removeAll(keepingCapacity: true)
            return piece
        }
        var piece: [UInt8] = []
        piece.reserveCapacity(capacity)
        return piece
    }

    /// Worker: the export's work is over (its last event is handed over, or it gave up).
    func workerFinished() { workerEnded.signal() }

    /// Relay: the next event, waiting for the worker. A piece is the worker's own buffer: the
    /// transport copies it into one of its own (`HTTPResponseStream.write`, on the relay), so no
    /// buffer of the worker's ever reaches the service thread; `giveBack` returns it then.
    func take() -> Event {
        ready.wait()
        let event = state.withLock { $0.events.removeFirst() }
        places.signal()
        return event
    }

    /// Relay: a piece the transport has copied, for the worker to fill again. Stored as it is,
    /// referenced nowhere else once the relay lets go of it (so refilling it never copies it).
    func giveBack(_ piece: consuming [UInt8]) {
        var pending: [UInt8]? = consume piece
        state.withLock { state in
            if state.spare.count < state.spareLimit { state.spare.append(pending.take()!) }
        }
    }

    /// Relay: takes nothing more; a waiting or later `put` returns false.
    func close() {
        let dropped = state.withLock { state -> Int in
            state.closed = true
            defer { state.events.removeAll() }
            return state.events.count
        }
        for _ in 0...dropped { places.signal() }
    }

    /// Relay: waits until the worker has ended (so the export's slot is given back only then).
    func waitForWorker() { workerEnded.wait() }
}

/// The worker's end of a handoff: what `RecordingExports.export` writes into.
struct HandoffBodyWriter: HTTPBodyWriter {
    let handoff: RecordingExportHandoff
    let wantsBody: Bool

    func begin(status: Int, contentType: String, headers: [(String, String)]) {
        _ = handoff.put(.begin(status: status, contentType: contentType, headers: headers))
    }
    func write(_ bytes: [UInt8]) -> Bool { handoff.put(.piece(bytes)) }
    func finish() { _ = handoff.put(.finish) }
    func abort() { _ = handoff.put(.abort) }
    /// The relay watches the transport's peak; the worker never asks.
    var peakBufferedBytes: Int { 0 }
}
