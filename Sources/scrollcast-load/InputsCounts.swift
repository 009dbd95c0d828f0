/// What `--stream inputs` counted (docs/benchmarks.md, "Inputs stream"): messages and changes
/// received inside the measurement window, changes missing from a connection's numbering, the
/// input-to-replica latency at the watchers, and, with `--replica`, every beat checked against
/// the room's native replica (from the snapshot on, ramp included) and the keyframes that followed.
struct InputsCounts: Equatable {
    /// `batch` and `beat` messages received by all connections inside the window.
    var batches: UInt64 = 0
    var beats: UInt64 = 0
    /// Changes those batches held.
    var changes: UInt64 = 0
    /// Changes missing between a connection's batches (the numbering has no gap: a client that
    /// holds change n expects n + 1 next).
    var missedChanges: UInt64 = 0

    /// A driver's input leaving → a watcher (a viewer, not a driver) holding the batch with it
    /// and a complete mark at or past its room time.
    var inputToReplica = LatencyHistogram()
    /// Of those, the inputs a watcher received before the room's complete mark reached them (an
    /// input held for its room time): they settle at a later batch or beat.
    var heldForMark: UInt64 = 0

    /// `--replica`: beats whose hash the room's replica matched or not, keyframes it asked
    /// (one per mismatch), its connection moved to frames by the server (the third keyframe
    /// within a minute), and replicas started from a snapshot's state (keyframes included).
    var beatsMatched: UInt64 = 0
    var beatsMismatched: UInt64 = 0
    var keyframes: UInt64 = 0
    var fallbacks: UInt64 = 0
    var replicaStarts: UInt64 = 0
    /// The first few mismatches, described.
    var mismatchExamples: [String] = []

    var beatsChecked: UInt64 { beatsMatched + beatsMismatched }

    mutating func mismatch(_ description: String) {
        beatsMismatched += 1
        mismatchExamples.keepExample(description)
    }

    mutating func merge(_ other: InputsCounts) {
        batches += other.batches
        beats += other.beats
        changes += other.changes
        missedChanges += other.missedChanges
        inputToReplica.merge(other.inputToReplica)
        heldForMark += other.heldForMark
        beatsMatched += other.beatsMatched
        beatsMismatched += other.beatsMismatched
        keyframes += other.keyframes
        fallbacks += other.fallbacks
        replicaStarts += other.replicaStarts
        mismatchExamples.keepExamples(of: other.mismatchExamples)
    }
}

extension LatencyHistogram: Equatable {
    static func == (lhs: LatencyHistogram, rhs: LatencyHistogram) -> Bool { lhs.summary() == rhs.summary() }
}
