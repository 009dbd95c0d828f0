import Foundation

/// The result of a run: printed as a table, written as JSON with `--json`.
/// Field meanings are documented in docs/benchmarks.md.
struct LoadReport: Codable {
    struct Fanout: Codable {
        var count: UInt64
        var p50: Double
        var p99: Double
        var max: Double
    }

    var url: String
    /// The subprotocol every connection spoke: `scrollcast.v1` (JSON) or `scrollcast.v2` (binary).
    var subprotocol: String
    /// `--stream`: "frames" or "inputs".
    var stream: String
    /// The script's name, or "replay" when the drivers played a recording.
    var script: String
    /// With `--replay`: which recording was played, e.g. "browser-session.jsonl (72 inputs over
    /// 9.4 s, from room 'x')".
    var recording: String?
    var seed: UInt64
    var rooms: Int
    /// Viewers in all rooms (watching only).
    var viewers: Int
    /// Drivers in all rooms (watching and playing the script).
    var drivers: Int
    var connections: Int
    /// Client threads the connections were split between (`--threads`).
    var threads: Int
    var peakConnected: Int
    var measuredSeconds: Double
    var connectFailures: Int
    var disconnects: Int
    var framesReceived: UInt64
    var framesPerSecond: Double
    var frameBytes: UInt64
    var bytesPerFrame: Double
    var missedFrames: UInt64
    var lagGapFrames: UInt64
    var keptUpMs: Double
    /// Server counter delta over the run; nil when the server exposes no such counter.
    var skippedFrames: Double?
    var latencyMs: LatencySummary?
    var fanoutMs: Fanout?
    /// Successive frames' |arrival gap − sentAt gap| at every connection (docs/links.md).
    var interArrivalJitterMs: Fanout?
    /// With `--link`: the emulated link and the emulator's own timing error; nil without.
    var link: LinkReport?
    var bytesReceived: UInt64
    /// Bytes of version 2's `texts` messages (0 in version 1, whose frames carry their texts).
    var textsBytes: UInt64
    var inputsSent: UInt64
    var inputsRefused: UInt64
    var errors: Int
    var errorReasons: [String: Int]

    // Cluster runs only (`--url` lists several nodes); absent from the JSON with one URL.
    /// The nodes, node 0 first.
    var urls: [String]?
    /// Connections planned on each node.
    var nodeConnections: [Int]?
    /// How the owner of a room is known: "first-node" (the node its founder joined first).
    var ownerHint: String?
    /// `--driver-node`: other, first or alternate.
    var driverNode: String?
    /// Drivers on the node that runs their room, and on another node.
    var localDrivers: Int?
    var remoteDrivers: Int?
    /// (room, seq) pairs seen on at least two nodes, and pairs whose bytes differed.
    var identityChecked: UInt64?
    var identityMismatches: UInt64?
    /// The first few mismatches: room, seq and the nodes.
    var identityMismatchExamples: [String]?
    /// CPU the load process used in the window (all threads), and per frame received (µs).
    var clientCpuSeconds: Double
    var clientCpuUsPerFrame: Double
    /// `--replica`: frames checked against the rooms' native replicas (`null` without it).
    var replica: ReplicaReport?
    /// Input-to-frame of local and of remote drivers (`null` when there were none).
    var latencyLocalMs: LatencySummary?
    var latencyRemoteMs: LatencySummary?
    /// `--stream inputs`: batches, beats, input-to-replica and the replica's beats (`null` on frames).
    var inputs: InputsReport?

    init(plan: LoadPlan, statistics: LoadStatistics, measuredSeconds: Double, skippedFrames: Double?, link: LinkReport? = nil) {
        url = plan.nodes.description
        subprotocol = plan.wireVersion.subprotocol
        stream = plan.stream.rawValue
        script = plan.recording == nil ? plan.script.rawValue : "replay"
        recording = plan.recording?.summary
        seed = plan.seed
        rooms = plan.rooms
        viewers = plan.rooms * plan.viewersPerRoom
        drivers = plan.rooms * plan.driversPerRoom
        connections = plan.totalConnections
        threads = plan.threads
        peakConnected = statistics.peakConnected
        self.measuredSeconds = Self.round(measuredSeconds)
        connectFailures = statistics.connectFailures
        disconnects = statistics.disconnects
        framesReceived = statistics.framesReceived
        framesPerSecond = measuredSeconds > 0 ? Self.round(Double(statistics.framesReceived) / measuredSeconds) : 0
        frameBytes = statistics.frameBytes
        bytesPerFrame = statistics.framesReceived > 0 ? Self.round(Double(statistics.frameBytes) / Double(statistics.framesReceived)) : 0
        missedFrames = statistics.missedFrames
        lagGapFrames = statistics.lagGapFrames
        keptUpMs = plan.keptUpMs
        self.skippedFrames = skippedFrames
        latencyMs = statistics.latency.summary()
        fanoutMs = statistics.fanout.summary().map { Fanout(count: $0.count, p50: $0.p50, p99: $0.p99, max: $0.max) }
        interArrivalJitterMs = statistics.interArrivalJitter.summary().map { Fanout(count: $0.count, p50: $0.p50, p99: $0.p99, max: $0.max) }
        self.link = link
        bytesReceived = statistics.bytesReceived
        textsBytes = statistics.textsBytes
        inputsSent = statistics.inputsSent
        inputsRefused = statistics.inputsRefused
        errors = statistics.errors
        errorReasons = statistics.errorReasons
        clientCpuSeconds = Self.round(statistics.windowCPUSeconds)
        clientCpuUsPerFrame = statistics.framesReceived > 0
            ? Self.round(statistics.windowCPUSeconds * 1_000_000 / Double(statistics.framesReceived)) : 0
        if plan.checksFrames { replica = ReplicaReport(statistics.replica) }
        if plan.stream == .inputs {
            inputs = InputsReport(statistics.inputs, replica: plan.checksBeats, bytesReceived: statistics.bytesReceived,
                                  connections: plan.totalConnections, measuredSeconds: measuredSeconds)
        }
        if plan.nodes.isCluster {
            let spread = plan.spread()
            urls = plan.nodes.addresses.map(\.webSocketURL)
            nodeConnections = spread.connectionsPerNode
            ownerHint = OwnerHint.firstNode.rawValue
            driverNode = plan.driverNode.rawValue
            localDrivers = spread.localDrivers
            remoteDrivers = spread.remoteDrivers
            identityChecked = statistics.identityChecked
            identityMismatches = statistics.identityMismatches
            identityMismatchExamples = statistics.identityMismatchExamples
            latencyLocalMs = statistics.localLatency.summary()
            latencyRemoteMs = statistics.remoteLatency.summary()
        }
    }

    private static func round(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// Pretty, key-sorted JSON; `skippedFrames` and the latency objects are written as `null`
    /// when unmeasured, so readers can tell "not measured" from zero.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var object = try JSONSerialization.jsonObject(with: encoder.encode(self)) as! [String: Any]
        var nullable = ["skippedFrames", "latencyMs", "fanoutMs", "interArrivalJitterMs", "link", "replica", "inputs"]
        if urls != nil { nullable += ["latencyLocalMs", "latencyRemoteMs"] }
        for key in nullable where object[key] == nil { object[key] = NSNull() }
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The human summary printed at the end of a run.
    func table() -> String {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.2f ms", $0) } ?? "–" }
        var rows: [(String, String)] = [
            ("url", url),
            ("protocol", subprotocol),
            ("stream", stream),
            ("rooms × (viewers + drivers)", "\(rooms) × (\(viewers / max(rooms, 1)) + \(drivers / max(rooms, 1))) = \(connections)"),
            recording.map { ("replay", $0) } ?? ("script / seed", "\(script) / \(seed)"),
            ("client threads", "\(threads)"),
            ("measured", String(format: "%.1f s", measuredSeconds)),
            ("connected (peak)", "\(peakConnected)"),
            ("connect failures", "\(connectFailures)"),
            ("disconnects", "\(disconnects)"),
            ("frames received", "\(framesReceived)"),
            ("frames/s", String(format: "%.0f", framesPerSecond)),
            ("bytes per frame", String(format: "%.0f", bytesPerFrame)),
            ("texts bytes (v2, sent once)", "\(textsBytes)"),
            ("missed frames (kept up, ≤ \(Int(keptUpMs)) ms)", "\(missedFrames)"),
            ("gap frames while lagging", "\(lagGapFrames)"),
            ("skipped frames (server)", skippedFrames.map { String(format: "%.0f", $0) } ?? "– (no counter)"),
            ("latency p50 / p90", "\(ms(latencyMs?.p50)) / \(ms(latencyMs?.p90))"),
            ("latency p99 / p99.9 / max", "\(ms(latencyMs?.p99)) / \(ms(latencyMs?.p999)) / \(ms(latencyMs?.max))"),
            ("latency samples", "\(latencyMs?.count ?? 0)"),
            ("fan-out p50 / p99", "\(ms(fanoutMs?.p50)) / \(ms(fanoutMs?.p99))"),
            ("inter-arrival jitter p50 / p99", "\(ms(interArrivalJitterMs?.p50)) / \(ms(interArrivalJitterMs?.p99))"),
            ("link", link?.model ?? "none (direct)"),
            ("bytes received", "\(bytesReceived)"),
            ("load tool CPU (window)", String(format: "%.2f s, %.1f µs per frame", clientCpuSeconds, clientCpuUsPerFrame)),
            ("inputs sent / refused", "\(inputsSent) / \(inputsRefused)"),
            ("errors", "\(errors)"),
        ]
        if let urls, let nodeConnections {
            for (node, url) in urls.enumerated() {
                rows.append(("node \(node)", "\(url)  (\(nodeConnections[node]) connections)"))
            }
            rows.append(("drivers local / remote", "\(localDrivers ?? 0) / \(remoteDrivers ?? 0)  (--driver-node \(driverNode ?? ""); owner: the room's first node, --owner-hint \(ownerHint ?? ""))"))
            rows.append(("latency local p50 / p99", "\(ms(latencyLocalMs?.p50)) / \(ms(latencyLocalMs?.p99))  (\(latencyLocalMs?.count ?? 0) samples)"))
            rows.append(("latency remote p50 / p99", "\(ms(latencyRemoteMs?.p50)) / \(ms(latencyRemoteMs?.p99))  (\(latencyRemoteMs?.count ?? 0) samples)"))
            rows.append(("identity checked / mismatches", "\(identityChecked ?? 0) / \(identityMismatches ?? 0)"))
            for example in identityMismatchExamples ?? [] { rows.append(("  mismatch", example)) }
        }
        if let replica {
            rows.append(("replica compared / identical / mismatches", "\(replica.compared) / \(replica.identical) / \(replica.mismatches)"))
            rows.append(("replica not compared", "\(replica.notCompared)  (the room's reference connection had no replica running for that seq)"))
            for example in replica.mismatchExamples { rows.append(("  replica mismatch", example)) }
        }
        if let inputs { rows += inputs.rows() }
        if let link {
            let error = link.timingErrorUs
            rows.append(("link timing error p50 / p99 / max", "\(error.p50) / \(error.p99) / \(error.max) µs over \(error.count) chunks"))
            rows.append(("link loop turn p99 / max", "\(link.loopTurnP99Us) / \(link.loopTurnMaxUs) µs"))
            rows.append(("link CPU", String(format: "%.1f %% of a core (%.2f s), %d stalls", link.cpuPercent, link.cpuSeconds, link.stalls)
                         + "; thread priority " + (link.raisedPriority ? "raised (nice -10)" : "normal (no CAP_SYS_NICE)")))
        }
        for (reason, count) in errorReasons.sorted(by: { $0.value > $1.value }).prefix(5) {
            rows.append(("  \(count) ×", reason))
        }
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }
}

/// `--replica`'s counts in the report: every frame received from the snapshot on (ramp
/// included) is either compared with the replica (identical or a mismatch) or not compared.
struct ReplicaReport: Codable, Equatable {
    var compared: UInt64
    var identical: UInt64
    var mismatches: UInt64
    var notCompared: UInt64
    /// The first few mismatches: room, seq, connection, and both frames' bytes in hex.
    var mismatchExamples: [String]

    init(_ counts: ReplicaCounts) {
        compared = counts.compared
        identical = counts.identical
        mismatches = counts.mismatches
        notCompared = counts.notCompared
        mismatchExamples = counts.mismatchExamples
    }
}
