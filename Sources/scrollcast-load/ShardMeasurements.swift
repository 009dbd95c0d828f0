import ScrollWire

/// What one shard counts. Frames, bytes, inputs and latencies go into `statistics` only while the
/// measurement window is open; problems count at any time. Frames and latencies are also kept
/// apart since the last progress update, for the progress line.
struct ShardMeasurements {
    /// The shard's counts, merged with the other shards' when the run ends.
    private(set) var statistics = LoadStatistics()
    /// Whether the measurement window is open.
    private(set) var measuring = false
    /// How long the window was open, once it has closed.
    private(set) var measuredSeconds = 0.0
    private var windowStartMs = 0.0
    /// A connection "keeps up" while its frames arrive within this many ms of their `sentAt`.
    private let keptUpMs: Double

    // Progress: counts not yet published.
    private var intervalFrames: UInt64 = 0
    private var intervalLatency = LatencyHistogram()

    init(keptUpMs: Double) {
        self.keptUpMs = keptUpMs
    }

    /// Opens the measurement window at `now` (monotonic ms).
    mutating func openWindow(atMs now: Double) {
        measuring = true
        windowStartMs = now
    }

    /// Closes the window at `now` (monotonic ms); closing it again changes nothing.
    mutating func closeWindow(atMs now: Double) {
        if measuring { measuredSeconds = (now - windowStartMs) / 1000 }
        measuring = false
    }

    /// Counts a connection that never reached its snapshot, and why.
    mutating func connectFailed(_ reason: String) {
        statistics.connectFailures += 1
        statistics.error(reason)
    }

    /// Counts a joined connection the server closed (or that broke), and why.
    mutating func disconnected(_ reason: String) {
        statistics.disconnects += 1
        statistics.error(reason)
    }

    /// Counts any other problem (a server error, an undecodable message).
    mutating func problem(_ reason: String) {
        statistics.error(reason)
    }

    /// Counts a version-2 `texts` message of `bytes` (already counted as a message).
    mutating func textsReceived(bytes: Int) {
        if measuring { statistics.textsBytes += UInt64(bytes) }
    }

    /// Counts a message of `bytes` from the server.
    mutating func messageReceived(bytes: Int) {
        if measuring { statistics.bytesReceived += UInt64(bytes) }
    }

    /// Counts an input a driver sent.
    mutating func inputSent() {
        if measuring { statistics.inputsSent += 1 }
    }

    /// Counts a refused input of `connection`'s; one it no longer waits for (or none) is not counted.
    mutating func inputRefused(_ input: UInt64?, on connection: LoadConnection) {
        if let input, connection.pending.remove(id: input), measuring {
            statistics.inputsRefused += 1
        }
    }

    /// Counts a frame `connection` received: its lateness, a gap in the sequence (missed if the
    /// connection kept up, lag otherwise), and, on a driver's connection, the latency of each
    /// input of its own that the frame settles. Frames before the snapshot do not count.
    mutating func frameArrived(seq: UInt64, sentAt: Double, input: AppliedInput?, bytes: Int, on connection: LoadConnection) {
        guard connection.phase == .live else { return }
        let lag = Clock.wallMs() - sentAt
        if let last = connection.lastSeq {
            if seq > last + 1, measuring {
                let gap = seq - last - 1
                if connection.lastLagMs <= keptUpMs && lag <= keptUpMs {
                    statistics.missedFrames += gap
                } else {
                    statistics.lagGapFrames += gap
                }
            } else if seq <= last {
                statistics.error("frame sequence went backwards")
            }
        }
        connection.lastSeq = seq
        connection.lastLagMs = lag
        intervalFrames += 1
        if measuring {
            statistics.framesReceived += 1
            statistics.frameBytes += UInt64(bytes)
            statistics.fanout.record(milliseconds: lag)
        }
        if connection.role == .driver, let input, input.viewer == connection.viewerName {
            let now = Clock.monotonicMs()
            for entry in connection.pending.settle(upTo: input.id) where entry.counted {
                let latency = now - entry.sentMs
                statistics.latency.record(milliseconds: latency)
                intervalLatency.record(milliseconds: latency)
            }
        }
    }

    /// Hands the frames and latencies since the last call, and the errors so far, to `progress`.
    mutating func publish(to progress: ShardProgress) {
        progress.publish(frames: intervalFrames, latency: intervalLatency, errorsSoFar: statistics.errors)
        intervalFrames = 0
        intervalLatency.reset()
    }
}
