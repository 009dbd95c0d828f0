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
    private var windowStartCPU = 0.0
    /// A connection "keeps up" while its frames arrive within this many ms of their `sentAt`.
    private let keptUpMs: Double

    /// The run's nodes, to name them in identity mismatches.
    private let nodes: NodeList
    /// Cluster runs: each room's recent frame hashes, by room number (made at its first frame).
    private var identities: [Int: FrameIdentityRing] = [:]
    private let identitySlots: Int

    // Progress: counts not yet published.
    private var intervalFrames: UInt64 = 0
    private var intervalLatency = LatencyHistogram()

    /// Measurements of a shard in a run of `rooms` rooms on `nodes`.
    init(keptUpMs: Double, nodes: NodeList, rooms: Int) {
        self.keptUpMs = keptUpMs
        self.nodes = nodes
        identitySlots = FrameIdentityRing.slots(rooms: rooms)
    }

    /// Opens the measurement window at `now` (monotonic ms).
    mutating func openWindow(atMs now: Double) {
        measuring = true
        windowStartMs = now
        windowStartCPU = Clock.processCPUSeconds()
    }

    /// Closes the window at `now` (monotonic ms); closing it again changes nothing.
    mutating func closeWindow(atMs now: Double) {
        if measuring {
            measuredSeconds = (now - windowStartMs) / 1000
            statistics.windowCPUSeconds = Clock.processCPUSeconds() - windowStartCPU
        }
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

    /// Counts a frame `connection` received (`message`: its raw bytes): its lateness, a gap in
    /// the sequence (missed if the connection kept up, lag otherwise), and, on a driver's
    /// connection, the latency of each input of its own that the frame settles, also as local
    /// or remote in a cluster run. Frames before the snapshot do not count. In a cluster run
    /// the bytes go to the identity check, from the snapshot to the end (ramp included).
    mutating func frameArrived(seq: UInt64, sentAt: Double, input: AppliedInput?, message: UnsafeBufferPointer<UInt8>,
                               on connection: LoadConnection) {
        guard connection.phase == .live else { return }
        let bytes = message.count
        if nodes.isCluster { checkIdentity(seq: seq, message: message, on: connection) }
        let lag = Clock.wallMs() - sentAt
        if measuring, let last = connection.lastSeq, seq == last + 1, connection.framesSinceSnapshot > 0 {
            // (arrival gap) − (sentAt gap) of successive frames is the change of their lag.
            statistics.interArrivalJitter.record(milliseconds: abs(lag - connection.lastLagMs))
        }
        if let last = connection.lastSeq {
            if seq > last + 1, measuring {
                let gap = seq - last - 1
                if connection.lastLagMs <= keptUpMs && lag <= keptUpMs {
                    statistics.missedFrames += gap
                } else {
                    statistics.lagGapFrames += gap
                }
            } else if seq < last {
                statistics.error("frame sequence went backwards")
            } else if seq == last {
                // Told apart: a repeat of the snapshot's own frame right after it is a different
                // fault from a frame sent twice later on.
                statistics.error(connection.framesSinceSnapshot == 0
                                 ? "first frame after the snapshot repeated the snapshot's seq"
                                 : "frame seq repeated")
            }
        }
        connection.framesSinceSnapshot += 1
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
                if nodes.isCluster {
                    if connection.ownerIsLocal {
                        statistics.localLatency.record(milliseconds: latency)
                    } else {
                        statistics.remoteLatency.record(milliseconds: latency)
                    }
                }
            }
        }
    }

    /// A driver's input settled without a frame (the inputs stream: its own batch, with the mark
    /// past it), `latencyMs` after it left; in a cluster run also as local or remote, as
    /// `ownerIsLocal` says (the driver's node runs the room, or another does).
    mutating func inputSettled(latencyMs: Double, ownerIsLocal: Bool) {
        statistics.latency.record(milliseconds: latencyMs)
        intervalLatency.record(milliseconds: latencyMs)
        guard nodes.isCluster else { return }
        if ownerIsLocal {
            statistics.localLatency.record(milliseconds: latencyMs)
        } else {
            statistics.remoteLatency.record(milliseconds: latencyMs)
        }
    }

    /// Compares the frame's bytes with what the room's other connections got for `seq`.
    private mutating func checkIdentity(seq: UInt64, message: UnsafeBufferPointer<UInt8>, on connection: LoadConnection) {
        let slots = identitySlots
        let outcome = identities[connection.roomNumber, default: FrameIdentityRing(slots: slots)]
            .record(seq: seq, hash: FNV1a64.hash(message), node: connection.node)
        if outcome.checkedAcrossNodes { statistics.identityChecked += 1 }
        guard let first = outcome.mismatchWith else { return }
        let node = connection.node
        let what = first == node
            ? "two connections on \(nodes.name(of: node)) received different bytes"
            : "\(nodes.name(of: first)) and \(nodes.name(of: node)) delivered different bytes"
        statistics.identityMismatch("room \(connection.room) seq \(seq): \(what)")
    }

    /// Hands the frames and latencies since the last call, and the errors so far, to `progress`.
    mutating func publish(to progress: ShardProgress) {
        progress.publish(frames: intervalFrames, latency: intervalLatency, errorsSoFar: statistics.errors)
        intervalFrames = 0
        intervalLatency.reset()
    }
}
