import Dispatch
import Foundation
import Logging
import Metrics
import ScrollcastRecording
import Synchronization

/// `GET /recording` exports, made off the room thread: the room thread only takes a slot and a
/// reader of the room's life from the store; a worker reads the log in batches, encodes it and
/// streams it, held back by the client's pace. At most `limit` run at once (a long life is a lot
/// of reading and encoding); one more is answered 503 with `Retry-After`.
final class RecordingExports: Sendable {
    /// Log entries read from the store at once: few, so the worker's arrays of rows and entries
    /// stay under the allocator's mmap threshold (16 KiB, MemoryTuning) and come from its own
    /// arena instead of page mappings (see `RecordingExportHandoff.State.spare`).
    static let batchEntries = 100
    /// Bytes encoded before they are handed to the transport at once.
    static let pieceBytes = 64 * 1024
    /// Room for one piece and the line that ends it, reserved once, so the buffer never grows.
    static let pieceCapacity = 72 * 1024
    /// Pieces the worker may have encoded ahead of the relay (and twice as many buffers made for
    /// it by the relay, so the worker never allocates one).
    static let handoffPieces = 2

    private let limit: Int
    private let retryAfterSeconds: Int
    /// Exports under way (taken on the room thread, given back by a relay as its response ends).
    private let running = Atomic(0)
    private let peakBuffered = Atomic(0)
    private let scenes: SceneCatalogue
    private let framePeriod: Double
    private let logger: Logger
    private let runningGauge: Gauge
    private let refusals: Counter
    private let peakGauge: Gauge

    init(limits: ServerLimits, scenes: SceneCatalogue, metrics: ServerMetrics, logger: Logger) {
        limit = limits.maxRecordingExports
        retryAfterSeconds = limits.recordingExportRetryAfterSeconds
        framePeriod = limits.tickMilliseconds
        self.scenes = scenes
        self.logger = logger
        runningGauge = metrics.recordingExports
        refusals = metrics.recordingExportsRefused
        peakGauge = metrics.recordingExportBufferPeak
    }

    /// An export waiting for a lane.
    private struct Job: Sendable {
        var room: String
        var key: String?
        var reader: RoomLifeReader
        var writer: HTTPBodyWriter
    }

    private let jobs = Mutex<[Job]>([])
    private let jobWaiting = DispatchSemaphore(value: 0)
    /// Whether the lanes' threads have been started (on the first export).
    private let lanesStarted = Atomic(false)

    /// Starts exporting `room`'s latest life from `reader` into `writer`, or answers 503 when
    /// `limit` exports run; a locked room's only for its driver `key`. Called on the room
    /// thread; returns at once.
    func start(room: String, key: String?, reader: RoomLifeReader, into writer: HTTPBodyWriter) {
        guard takeSlot() else {
            refusals.increment()
            writer.send(HTTPReply(status: 503, contentType: "text/plain; charset=utf-8",
                                  body: Array("\(limit) recordings are being exported already; try again in \(retryAfterSeconds) s\n".utf8),
                                  headers: [("retry-after", "\(retryAfterSeconds)")]))
            return
        }
        startLanesOnce()
        jobs.withLock { $0.append(Job(room: room, key: key, reader: reader, writer: writer)) }
        jobWaiting.signal()
    }

    /// `limit` lanes, each a worker in SCHED_IDLE that reads and encodes, and a relay at the room
    /// thread's priority that hands the worker's pieces to the transport (RecordingExportHandoff
    /// says why two). They live as long as the server: a thread starting or ending takes locks
    /// of the C library (its stack cache) the room thread takes to start one, and a worker at
    /// low priority ending one export after another held the room thread back that way
    /// (bench/where-the-time-goes.md §14).
    private func startLanesOnce() {
        guard lanesStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let roomThreadIsRealtime = ThreadPriority.isRealtime
        for _ in 0..<limit {
            let lane = Mutex<(handoff: RecordingExportHandoff, job: Job)?>(nil)
            let workerGo = DispatchSemaphore(value: 0)
            // Named from inside, through pthread: Foundation's `Thread.name` did not reliably
            // reach the kernel's name of the thread on Linux.
            Thread { [self] in
                ThreadPriority.nameCurrentThread("export-worker")
                lowerToBackgroundPriority()
                while true {
                    workerGo.wait()
                    guard let (handoff, job) = lane.withLock({ $0 }) else { continue }
                    export(room: job.room, key: job.key, reader: job.reader, into: HandoffBodyWriter(handoff: handoff, wantsBody: job.writer.wantsBody))
                    handoff.workerFinished()
                }
            }.start()
            Thread { [self] in
                ThreadPriority.nameCurrentThread("export-relay")
                // At the room thread's own priority: when that is real-time, a relay preempted by
                // ordinary processes in a lock or a page mapping would hold the room thread back.
                if roomThreadIsRealtime { _ = ThreadPriority.raiseToRealtime() }
                while true {
                    jobWaiting.wait()
                    let job = jobs.withLock { $0.removeFirst() }
                    let handoff = RecordingExportHandoff(capacity: Self.handoffPieces, spares: Self.handoffPieces + 2,
                                                         pieceCapacity: Self.pieceCapacity)
                    lane.withLock { $0 = (handoff, job) }
                    workerGo.signal()
                    relay(handoff, into: job.writer)
                    handoff.waitForWorker()
                    lane.withLock { $0 = nil }
                }
            }.start()
        }
    }

    /// One more export, unless `limit` run. Lock-free: the relay gives slots back.
    private func takeSlot() -> Bool {
        var current = running.load(ordering: .relaxed)
        while current < limit {
            let (done, now) = running.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if done {
                runningGauge.record(current + 1)
                return true
            }
            current = now
        }
        return false
    }

    /// The relay: passes the worker's events to the transport until the response ends or the
    /// client goes away (the transport copies each piece: `RecordingExportHandoff.take`). The
    /// export's slot is given back before the response ends: a client that asks again as soon
    /// as it has its answer (a 401, say) must not find its own finished export still counted
    /// (a test's next request read 503 "2 recordings are being exported already" that way). A
    /// job taken meanwhile waits for a lane, at most until this one's worker returns.
    private func relay(_ handoff: RecordingExportHandoff, into writer: HTTPBodyWriter) {
        while true {
            switch handoff.take() {
            case let .begin(status, contentType, headers):
                writer.begin(status: status, contentType: contentType, headers: headers)
            case .piece(let bytes):
                let taken = writer.write(bytes)
                handoff.giveBack(consume bytes)
                guard taken else {
                    giveSlotBack()
                    return handoff.close()
                }
                notePeak(writer.peakBufferedBytes)
            case .finish:
                giveSlotBack()
                return writer.finish()
            case .abort:
                giveSlotBack()
                return writer.abort()
            }
        }
    }

    private func giveSlotBack() {
        runningGauge.record(running.subtract(1, ordering: .relaxed).newValue)
    }

    /// The export itself, on a worker. The head waits for the first batch, so a log that
    /// cannot be replayed from its start is still a 500; a failure later cuts the body short.
    private func export(room: String, key: String?, reader: RoomLifeReader, into writer: HandoffBodyWriter) {
        var begun = false
        do {
            guard let start = try reader.start() else {
                return writer.send(.text(status: 404, "no room '\(room)' in the store"))
            }
            if let refusal = RecordingRoute.refusal(room: room, keyDigest: start.driverKeyDigest, key: key) {
                return writer.send(refusal)
            }
            let header = try start.recordingHeader(scenes: scenes, framePeriod: framePeriod)
            var checker = RecordingEntryChecker(room: room, life: start.life)
            var bytes = writer.handoff.emptyPiece(capacity: Self.pieceCapacity)
            bytes += RecordingEncoder.header(header)
            bytes.append(UInt8(ascii: "\n"))
            while true {
                let batch = try reader.nextEntries(limit: Self.batchEntries)
                for entry in batch {
                    let line = RecordingEncoder.line(try checker.entry(for: entry))
                    if begun, bytes.count + line.count >= Self.pieceCapacity {
                        guard hand(&bytes, to: writer) else { return }
                    }
                    bytes += line
                    bytes.append(UInt8(ascii: "\n"))
                }
                if !begun {
                    begun = true
                    writer.begin(status: 200, contentType: RecordingRoute.contentType, headers: [
                        ("content-disposition", "attachment; filename=\"\(RecordingRoute.fileName(room: room, life: start.life))\""),
                    ])
                    if !writer.wantsBody { return writer.finish() }
                }
                if bytes.count >= Self.pieceBytes || batch.isEmpty {
                    guard hand(&bytes, to: writer) else { return }
                }
                if batch.isEmpty { return writer.finish() }
            }
        } catch {
            logger.warning("recording failed", metadata: ["room": "\(room)", "error": "\(error.message)"])
            if begun { return writer.abort() }
            writer.send(.text(status: 500, "cannot make the recording of room '\(room)': \(error.message)"))
        }
    }

    /// Hands the worker's full `piece` to the relay and leaves an empty one in its place, taken
    /// first: once handed over, the piece may come back as a spare before the worker lets go of
    /// it, and refilling a buffer still referenced twice would copy it. False once the client is gone.
    private func hand(_ piece: inout [UInt8], to writer: HandoffBodyWriter) -> Bool {
        var full = writer.handoff.emptyPiece(capacity: Self.pieceCapacity)
        swap(&full, &piece)
        return writer.write(full)
    }

    /// The calling worker in the SCHED_IDLE policy: the kernel preempts it whenever an ordinary
    /// thread (a room thread, a client on the same machine) wakes on its CPU, where at nice 19,
    /// the policy before, the woken thread waited for the rest of the worker's slice
    /// (docs/recording.md, "Downloading"). It also writes
    /// the store's queued log first (`RoomLifeReader.start`) at that priority: the store's writer
    /// may wait for it then, but the room thread never waits for the writer.
    private func lowerToBackgroundPriority() {
        let error = ThreadPriority.lowerToBackground()
        if error != 0 {
            logger.warning("recording export runs at nice 19 at best, not in SCHED_IDLE", metadata: ["errno": "\(error)"])
        }
    }

    private func notePeak(_ bytes: Int) {
        var current = peakBuffered.load(ordering: .relaxed)
        while bytes > current {
            let (done, now) = peakBuffered.compareExchange(expected: current, desired: bytes, ordering: .relaxed)
            if done { peakGauge.record(bytes); return }
            current = now
        }
    }
}
