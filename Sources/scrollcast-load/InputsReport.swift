/// `--stream inputs` in the report (`inputs` in the JSON, `null` in the frames stream); field
/// meanings in docs/benchmarks.md, "Inputs stream".
struct InputsReport: Codable, Equatable {
    /// Messages and changes received by all connections in the window.
    var batches: UInt64
    var beats: UInt64
    var changes: UInt64
    /// Changes missing from a connection's numbering (reliable messages: must be 0).
    var missedChanges: UInt64
    /// Bytes of every message received, per connection and second of the window.
    var bytesPerConnectionSecond: Double
    /// A driver's input leaving → each watcher holding it with the room's complete mark past it.
    var inputToReplicaMs: LatencySummary?
    /// Input-to-replica samples whose input arrived before the complete mark reached its time.
    var heldForMark: UInt64
    /// With `--replica`: the rooms' native replicas' beat checks; nil without.
    var replica: Replica?

    struct Replica: Codable, Equatable {
        var beatsChecked: UInt64
        var beatsMatched: UInt64
        var beatsMismatched: UInt64
        var keyframes: UInt64
        /// Replica connections the server moved to frames (the third keyframe within a minute).
        var fallbacks: UInt64
        /// Replicas started from a snapshot's state (one per room, plus one per keyframe).
        var starts: UInt64
        var mismatchExamples: [String]
    }

    init(_ counts: InputsCounts, replica: Bool, bytesReceived: UInt64, connections: Int, measuredSeconds: Double) {
        batches = counts.batches
        beats = counts.beats
        changes = counts.changes
        missedChanges = counts.missedChanges
        let connectionSeconds = Double(connections) * measuredSeconds
        bytesPerConnectionSecond = connectionSeconds > 0 ? (Double(bytesReceived) / connectionSeconds * 10).rounded() / 10 : 0
        inputToReplicaMs = counts.inputToReplica.summary()
        heldForMark = counts.heldForMark
        if replica {
            self.replica = Replica(beatsChecked: counts.beatsChecked, beatsMatched: counts.beatsMatched,
                                   beatsMismatched: counts.beatsMismatched, keyframes: counts.keyframes,
                                   fallbacks: counts.fallbacks, starts: counts.replicaStarts,
                                   mismatchExamples: counts.mismatchExamples)
        }
    }

    /// The report table's rows for the inputs stream.
    func rows() -> [(String, String)] {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.2f ms", $0) } ?? "–" }
        var rows: [(String, String)] = [
            ("inputs stream batches / beats", "\(batches) / \(beats)"),
            ("changes received / missed", "\(changes) / \(missedChanges)"),
            ("bytes per connection-second", String(format: "%.1f", bytesPerConnectionSecond)),
            ("input-to-replica p50 / p99", "\(ms(inputToReplicaMs?.p50)) / \(ms(inputToReplicaMs?.p99))"),
            ("input-to-replica max / samples / held for the mark",
             "\(ms(inputToReplicaMs?.max)) / \(inputToReplicaMs?.count ?? 0) / \(heldForMark)"),
        ]
        if let replica {
            rows.append(("replica beats checked / matched / mismatched",
                         "\(replica.beatsChecked) / \(replica.beatsMatched) / \(replica.beatsMismatched)"))
            rows.append(("replica keyframes / moved to frames / starts", "\(replica.keyframes) / \(replica.fallbacks) / \(replica.starts)"))
            for example in replica.mismatchExamples { rows.append(("  replica mismatch", example)) }
        }
        return rows
    }
}
