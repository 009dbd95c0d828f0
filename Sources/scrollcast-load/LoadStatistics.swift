/// Everything counted during a run. Each client thread counts into its own copy while the run
/// lasts; the main thread merges the copies after every thread stopped.
struct LoadStatistics {
    /// Connections that never reached a snapshot: refused upgrade, unreachable, closed before joining.
    var connectFailures = 0
    /// Connections the server closed (or that broke) after they had joined.
    var disconnects = 0
    /// Every problem seen (connect failures, disconnects, server `error` messages, undecodable
    /// messages, frames out of order), with a count per distinct reason.
    var errorReasons: [String: Int] = [:]
    var errors: Int { errorReasons.values.reduce(0, +) }

    /// Frames received by all connections inside the measurement window.
    var framesReceived: UInt64 = 0
    /// Bytes of those frames.
    var frameBytes: UInt64 = 0
    /// Bytes of every message received inside the window.
    var bytesReceived: UInt64 = 0
    /// Bytes of version 2's `texts` messages inside the window (texts sent once, apart from frames).
    var textsBytes: UInt64 = 0
    /// Frames missing from the sequence of a connection that kept up (see `docs/benchmarks.md`).
    var missedFrames: UInt64 = 0
    /// Frames missing from the sequence while the connection itself lagged behind.
    var lagGapFrames: UInt64 = 0

    var inputsSent: UInt64 = 0
    var inputsRefused: UInt64 = 0

    /// Input sent by a driver → first frame naming it (or a later input of the same driver).
    var latency = LatencyHistogram()
    /// Frame `sentAt` (server wall clock) → receipt.
    var fanout = LatencyHistogram()
    /// Inter-arrival jitter: for successive frames (seq n, n + 1) of one connection, how much the
    /// gap between their arrivals differs from the gap between their `sentAt`s (docs/links.md).
    var interArrivalJitter = LatencyHistogram()

    /// Cluster runs: the latencies above of drivers on the node that runs their room (by the
    /// owner hint), and of drivers on another node (their inputs are forwarded to the owner).
    var localLatency = LatencyHistogram()
    var remoteLatency = LatencyHistogram()

    /// Cluster runs: (room, seq) pairs whose frame reached connections on at least two nodes,
    /// and pairs whose bytes differed between two connections (the protocol promises every
    /// viewer of a room the same bytes for a seq), with the first few described.
    var identityChecked: UInt64 = 0
    var identityMismatches: UInt64 = 0
    var identityMismatchExamples: [String] = []
    /// At most this many mismatches are described.
    static let mostMismatchExamples = 5

    /// `--replica`: frames compared with the room's native replica, and those not compared.
    var replica = ReplicaCounts()
    /// `--stream inputs`: batches, beats, changes, input-to-replica, and the replica's beats.
    var inputs = InputsCounts()

    /// CPU seconds the whole load process used during the measurement window (every thread's
    /// window is the same one, so merging keeps the largest).
    var windowCPUSeconds = 0.0

    /// Most connections joined at one time (counted across threads by `RunCoordinator`).
    var peakConnected = 0

    mutating func error(_ reason: String) { errorReasons[reason, default: 0] += 1 }

    /// Counts one (room, seq) pair whose bytes differed, described as `description`.
    mutating func identityMismatch(_ description: String) {
        identityMismatches += 1
        identityMismatchExamples.keepExample(description)
    }

    /// Adds another thread's counts to these. `peakConnected` is not summed: peaks of separate
    /// threads need not coincide, so the caller sets it from the shared count.
    mutating func merge(_ other: LoadStatistics) {
        connectFailures += other.connectFailures
        disconnects += other.disconnects
        errorReasons.merge(other.errorReasons, uniquingKeysWith: +)
        framesReceived += other.framesReceived
        frameBytes += other.frameBytes
        bytesReceived += other.bytesReceived
        textsBytes += other.textsBytes
        missedFrames += other.missedFrames
        lagGapFrames += other.lagGapFrames
        inputsSent += other.inputsSent
        inputsRefused += other.inputsRefused
        latency.merge(other.latency)
        fanout.merge(other.fanout)
        interArrivalJitter.merge(other.interArrivalJitter)
        localLatency.merge(other.localLatency)
        remoteLatency.merge(other.remoteLatency)
        replica.merge(other.replica)
        inputs.merge(other.inputs)
        windowCPUSeconds = max(windowCPUSeconds, other.windowCPUSeconds)
        identityChecked += other.identityChecked
        identityMismatches += other.identityMismatches
        identityMismatchExamples.keepExamples(of: other.identityMismatchExamples)
    }
}

extension Array where Element == String {
    /// Keeps `description` while fewer than `LoadStatistics.mostMismatchExamples` are kept.
    mutating func keepExample(_ description: String) {
        if count < LoadStatistics.mostMismatchExamples { append(description) }
    }

    /// Keeps `others` after these, up to `LoadStatistics.mostMismatchExamples` in all.
    mutating func keepExamples(of others: [String]) {
        self = Array((self + others).prefix(LoadStatistics.mostMismatchExamples))
    }
}
