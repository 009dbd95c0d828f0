import Metrics

/// The server's metrics, created from a factory handed in (so tests can each use their own
/// Prometheus registry instead of the process-wide bootstrap).
public final class ServerMetrics: Sendable {
    /// Open viewer connections.
    let viewers: Metrics.Gauge
    /// Live rooms.
    let rooms: Metrics.Gauge
    /// Frames handed to connections (one per viewer per frame).
    package let framesSent: Metrics.Counter
    /// Frames replaced by a newer one before a slow viewer's connection could write them.
    package let framesSkipped: Metrics.Counter
    /// Inputs applied to a scene.
    let inputs: Metrics.Counter
    /// Inputs answered with `refused`.
    package let refusedInputs: Metrics.Counter
    /// Payload bytes handed to connections.
    package let bytesOut: Metrics.Counter
    /// Row moves a room store failed to make durable (so they were not announced, and the room
    /// took them back).
    package let storeFailures: Metrics.Counter
    /// Inputs refused with `unavailable`: they would have moved a row while the store could not
    /// write.
    let unavailableRefusals: Metrics.Counter
    /// 1 while the room store accepts writes, 0 while it is failing (set each housekeeping).
    let storeWritable: Metrics.Gauge
    /// Time to encode one room frame (once per room frame, shared by its viewers).
    let frameEncodeTime: Metrics.Timer
    /// Joins that resumed (sent only what the viewer missed).
    package let resumes: Metrics.Counter
    /// Joins that asked to resume and got a snapshot (another life, beyond the history, …).
    package let resumesRefused: Metrics.Counter
    /// Keyframes sent to viewers of the inputs stream that asked (their hash disagreed).
    package let keyframes: Metrics.Counter
    /// Viewers of the inputs stream moved back to frames (their hash kept disagreeing).
    package let inputsStreamFallbacks: Metrics.Counter
    /// `GET /recording` exports running now.
    let recordingExports: Metrics.Gauge
    /// Exports answered 503 because the limit of them were running.
    let recordingExportsRefused: Metrics.Counter
    /// The most bytes one export has had waiting for its client at once, since the start.
    let recordingExportBufferPeak: Metrics.Gauge

    /// Metric names, as they appear on `/metrics`.
    public enum Name {
        /// Gauge of open viewer connections.
        public static let viewers = "scrollcast_viewers"
        /// Gauge of live rooms.
        public static let rooms = "scrollcast_rooms"
        /// Counter of frames sent (per viewer).
        public static let framesSent = "scrollcast_frames_sent_total"
        /// Counter of frames skipped for slow viewers.
        public static let framesSkipped = "scrollcast_frames_skipped_total"
        /// Counter of inputs applied.
        public static let inputs = "scrollcast_inputs_total"
        /// Counter of inputs refused.
        public static let refusedInputs = "scrollcast_refused_inputs_total"
        /// Counter of payload bytes sent.
        public static let bytesOut = "scrollcast_bytes_out_total"
        /// Counter of room store writes that failed.
        public static let storeFailures = "scrollcast_store_failures_total"
        /// Counter of inputs refused with `unavailable` (the store could not write).
        public static let unavailableRefusals = "scrollcast_store_unavailable_refusals_total"
        /// Gauge: 1 while the room store accepts writes, 0 while writes fail.
        public static let storeWritable = "scrollcast_store_writable"
        /// Histogram of frame encode time, seconds.
        public static let frameEncodeTime = "scrollcast_frame_encode_seconds"
        /// Counter of joins that resumed.
        public static let resumes = "scrollcast_resumes_total"
        /// Counter of joins that asked to resume and got a snapshot.
        public static let resumesRefused = "scrollcast_resume_snapshots_total"
        /// Counter of keyframes sent in the inputs stream.
        public static let keyframes = "scrollcast_keyframes_total"
        /// Counter of inputs-stream viewers moved back to frames.
        public static let inputsStreamFallbacks = "scrollcast_inputs_stream_fallbacks_total"
        /// Gauge of recording exports running.
        public static let recordingExports = "scrollcast_recording_exports"
        /// Counter of recording exports refused with 503 (too many running).
        public static let recordingExportsRefused = "scrollcast_recording_exports_refused_total"
        /// Gauge: the most bytes one export has held unsent at once (its backpressure bound).
        public static let recordingExportBufferPeak = "scrollcast_recording_export_buffer_peak_bytes"
    }

    /// Metrics made by `factory`.
    public init(factory: any MetricsFactory) {
        viewers = Metrics.Gauge(label: Name.viewers, factory: factory)
        rooms = Metrics.Gauge(label: Name.rooms, factory: factory)
        framesSent = Metrics.Counter(label: Name.framesSent, factory: factory)
        framesSkipped = Metrics.Counter(label: Name.framesSkipped, factory: factory)
        inputs = Metrics.Counter(label: Name.inputs, factory: factory)
        refusedInputs = Metrics.Counter(label: Name.refusedInputs, factory: factory)
        bytesOut = Metrics.Counter(label: Name.bytesOut, factory: factory)
        storeFailures = Metrics.Counter(label: Name.storeFailures, factory: factory)
        unavailableRefusals = Metrics.Counter(label: Name.unavailableRefusals, factory: factory)
        storeWritable = Metrics.Gauge(label: Name.storeWritable, factory: factory)
        storeWritable.record(1)
        frameEncodeTime = Metrics.Timer(label: Name.frameEncodeTime, factory: factory)
        resumes = Metrics.Counter(label: Name.resumes, factory: factory)
        resumesRefused = Metrics.Counter(label: Name.resumesRefused, factory: factory)
        keyframes = Metrics.Counter(label: Name.keyframes, factory: factory)
        inputsStreamFallbacks = Metrics.Counter(label: Name.inputsStreamFallbacks, factory: factory)
        recordingExports = Metrics.Gauge(label: Name.recordingExports, factory: factory)
        recordingExports.record(0)
        recordingExportsRefused = Metrics.Counter(label: Name.recordingExportsRefused, factory: factory)
        recordingExportBufferPeak = Metrics.Gauge(label: Name.recordingExportBufferPeak, factory: factory)
        recordingExportBufferPeak.record(0)
    }
}
