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
    /// Pieces the worker may have encoded ahead of the relay.
    static let handoffPieces = 2

    private let limit: Int
    private let retryAfterSeconds: Int
    /// Exports under way (taken on the room thread, given back by a relay).
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

    /// Starts exporting `room`'s latest life from `reader` into `writer`, or answers 503 when
    /// `limit` exports run. Called on the room thread; returns at once.
    func start(room: String, reader: RoomLifeReader, into writer: HTTPBodyWriter) {
        guard takeSlot() else {
            refusals.increment()
            writer.send(HTTPReply(status: 503, contentType: "text/plain; charset=utf-8",
                                  body: Array("\(limit) recordings are being exported already; try again in \(retryAfterSeconds) s\n".utf8),
                                  headers: [("retry-after", "\(retryAfterSeconds)")]))
            return
        }
        // Two threads per export (at most `limit` exports): the worker reads and encodes at the
        // lowest priority, so it only ever takes CPU time the room thread leaves; the relay hands
        // its pieces to the transport at normal priority (RecordingExportHandoff says why).
        let handoff = RecordingExportHandoff(capacity: Self.handoffPieces)
        let workerWriter = HandoffBodyWriter(handoff: handoff, wantsBody: writer.wantsBody)
        let roomThreadIsRealtime = ThreadPriority.isRealtime
        // Named from inside (on Linux a name given before `start` does not reach the thread), in
        // at most 15 characters (the kernel refuses longer ones).
        let worker = Thread { [self] in
            Thread.current.name = "export-worker"
            defer { handoff.workerFinished() }
            export(room: room, reader: reader, into: workerWriter)
        }
        let relayThread = Thread { [self] in
            Thread.current.name = "export-relay"
            // At the room thread's own priority: when that is real-time, a relay preempted by
            // ordinary processes in a lock or a page mapping would hold the room thread back.
            if roomThreadIsRealtime { _ = ThreadPriority.raiseToRealtime() }
            relay(handoff, into: writer)
            handoff.waitForWorker()
            runningGauge.record(running.subtract(1, ordering: .relaxed).newValue)
        }
        worker.start()
        relayThread.start()
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
    /// client goes away (pieces come copied: `RecordingExportHandoff.take`).
    private func relay(_ handoff: RecordingExportHandoff, into writer: HTTPBodyWriter) {
        while true {
            switch handoff.take() {
            case let .begin(status, contentType, headers):
                writer.begin(status: status, contentType: contentType, headers: headers)
            case .piece(let bytes):
                guard writer.write(bytes) else { return handoff.close() }
                notePeak(writer.peakBufferedBytes)
            case .finish:
                return writer.finish()
            case .abort:
                return writer.abort()
            }
        }
    }

    /// The export itself, on a worker. The head waits for the first batch, so a log that
    /// cannot be replayed from its start is still a 500; a failure later cuts the body short.
    private func export(room: String, reader: RoomLifeReader, into writer: HandoffBodyWriter) {
        var begun = false
        do {
            guard let start = try reader.start() else {
                return writer.send(.text(status: 404, "no room '\(room)' in the store"))
            }
            // Only now: `start` waits for the store's writer, whose lock the room thread takes.
            lowerToBackgroundPriority()
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
                        guard writer.write(bytes) else { return }
                        bytes = writer.handoff.emptyPiece(capacity: Self.pieceCapacity)
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
                    guard writer.write(bytes) else { return }
                    bytes = writer.handoff.emptyPiece(capacity: Self.pieceCapacity)
                }
                if batch.isEmpty { return writer.finish() }
            }
        } catch {
            logger.warning("recording failed", metadata: ["room": "\(room)", "error": "\(error.message)"])
            if begun { return writer.abort() }
            writer.send(.text(status: 500, "cannot make the recording of room '\(room)': \(error.message)"))
        }
    }

    /// The calling worker at nice 19: it runs on whatever CPU time the room thread leaves.
    private func lowerToBackgroundPriority() {
        let error = ThreadPriority.lowerToBackground()
        if error != 0 {
            logger.warning("recording export runs at normal priority", metadata: ["errno": "\(error)"])
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
