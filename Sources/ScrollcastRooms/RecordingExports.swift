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
    /// Log entries read from the store at once.
    static let batchEntries = 2000
    /// Bytes encoded before they are handed to the transport at once.
    static let pieceBytes = 64 * 1024
    /// Room for one piece and the line that ends it, reserved once, so the buffer never grows.
    static let pieceCapacity = 72 * 1024

    private let limit: Int
    private let retryAfterSeconds: Int
    private let running = Mutex(0)
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
        let taken = running.withLock { running -> Bool in
            guard running < limit else { return false }
            running += 1
            runningGauge.record(running)
            return true
        }
        guard taken else {
            refusals.increment()
            writer.send(HTTPReply(status: 503, contentType: "text/plain; charset=utf-8",
                                  body: Array("\(limit) recordings are being exported already; try again in \(retryAfterSeconds) s\n".utf8),
                                  headers: [("retry-after", "\(retryAfterSeconds)")]))
            return
        }
        // One thread per export (at most `limit`). Not at a lower priority: it shares locks with
        // the room thread (the stream's, the service loop's job queue, the allocator's), and a
        // niced holder preempted on a busy machine stalled the room thread for up to 0.7 s.
        let thread = Thread { [self] in
            export(room: room, reader: reader, into: writer)
            let now = running.withLock { running in
                running -= 1
                return running
            }
            runningGauge.record(now)
        }
        thread.name = "recording-export"
        thread.start()
    }

    /// The export itself, on a worker. The head waits for the first batch, so a log that
    /// cannot be replayed from its start is still a 500; a failure later cuts the body short.
    private func export(room: String, reader: RoomLifeReader, into writer: HTTPBodyWriter) {
        var begun = false
        do {
            guard let start = try reader.start() else {
                return writer.send(.text(status: 404, "no room '\(room)' in the store"))
            }
            let header = try start.recordingHeader(scenes: scenes, framePeriod: framePeriod)
            var checker = RecordingEntryChecker(room: room, life: start.life)
            var bytes = RecordingEncoder.header(header)
            bytes.append(UInt8(ascii: "\n"))
            bytes.reserveCapacity(Self.pieceCapacity)
            while true {
                let batch = try reader.nextEntries(limit: Self.batchEntries)
                for entry in batch {
                    let line = RecordingEncoder.line(try checker.entry(for: entry))
                    if begun, bytes.count + line.count >= Self.pieceCapacity {
                        guard writer.write(bytes) else { return }
                        bytes = []
                        bytes.reserveCapacity(Self.pieceCapacity)
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
                    // A fresh buffer: the transport holds the old one until it is written.
                    bytes = []
                    bytes.reserveCapacity(Self.pieceCapacity)
                    notePeak(writer.peakBufferedBytes)
                }
                if batch.isEmpty { return writer.finish() }
            }
        } catch {
            logger.warning("recording failed", metadata: ["room": "\(room)", "error": "\(error.message)"])
            if begun { return writer.abort() }
            writer.send(.text(status: 500, "cannot make the recording of room '\(room)': \(error.message)"))
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
