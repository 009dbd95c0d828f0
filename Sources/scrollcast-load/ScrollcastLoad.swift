import ArgumentParser
import Foundation
import LinkEmulator
import ScrollWire

/// `scrollcast-load`: many simulated browsers against one server, from a few client threads.
@main
struct ScrollcastLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scrollcast-load",
        abstract: "Load generator for the Scrollcast server: viewers watch, drivers play gesture scripts.",
        discussion: """
            Opens rooms × (viewers + drivers) WebSocket connections over --ramp seconds, then measures \
            for --duration seconds: frames delivered, sequence gaps, input-to-frame latency at the \
            drivers and fan-out delay at every connection. Exits non-zero when connections fail or \
            nothing could be measured. Rooms are dealt out to --threads client threads (each one \
            WebSocket client on its own core); all connections of a room share a thread. \
            Field meanings: docs/benchmarks.md.

            Cluster (--url A,B,C: the nodes of one cluster, node 0 first): with N nodes, room r's \
            first node is r mod N and viewer k of room r (from 0) connects to node (r + k) mod N, \
            so every room has viewers on several nodes. Viewer 0 founds the room: it connects \
            before the room's others, which wait for its snapshot. The owner of a room is taken \
            to be its first node (--owner-hint first-node: the first viewer to join a room \
            creates it on its node; nothing asks Redis), which holds only for rooms that no node \
            runs yet, so give each run against a cluster a fresh --room-prefix. Drivers go where \
            --driver-node says (default: never the room's first node, so inputs cross nodes). \
            The report adds input-to-frame latency of local drivers (on the owner's node) and \
            remote ones, and an identity check: every connection's frame bytes are hashed per \
            room and seq, and a seq whose bytes differ between connections (any nodes) fails \
            the run, naming room, seq and nodes.

            --replica: every connection joins with inputs: true; per room (and node) a native \
            replica of the engine, fed the relayed applied inputs, computes each frame, and every \
            connection's frame must equal it byte for byte (sentAt aside). The report counts \
            frames compared, identical, mismatched and not compared; a mismatch fails the run, \
            naming room, seq, node, connection and both frames in hex.

            --stream inputs (--viewers ≥ 1; with several --url, a replica per room and node): every connection joins the inputs stream \
            (docs/protocol.md, "The inputs stream") with this build's engine version: a snapshot \
            with the engine's state, then batches of changes and hashed beats, no frames. Each \
            viewer reads only the front of a batch (its last change number, count and complete \
            mark) and of a beat, counts their bytes and any change missing from its numbering; \
            the first connection of a room to receive a batch decodes it, once for the room, to \
            learn which driver input each change applied. The report adds input-to-replica \
            latency: from a driver's input leaving to a viewer holding it with the room's complete \
            mark at or past its room time, over every viewer. With --replica, one native replica \
            per room (on its first viewer to join) restores the snapshot's state, applies every \
            batch and checks every beat's hash against its own frame at that time; on a mismatch \
            it asks a keyframe and starts again from it. Beats checked, matched and mismatched, \
            keyframes and moves to frames are counted; a mismatch fails the run.
            """)

    @Option(help: ArgumentHelp(
        "WebSocket URL of the server, or the comma-separated URLs of a cluster's nodes (see Cluster above).",
        valueName: "url[,url…]"))
    var url = "ws://127.0.0.1:8080/ws"

    @Option(help: ArgumentHelp(
        "With several --url nodes: where each room's drivers connect. other: never the room's first node where there is another (driver j of room r on node (r + 1 + j mod (N-1)) mod N), so every input is forwarded to the owner; first: the room's first node (local); alternate: even rooms first, odd rooms other.",
        valueName: "other|first|alternate"))
    var driverNode: NodePlacement.DriverNode = .other

    @Option(help: ArgumentHelp(
        "With several --url nodes: how the load tool knows which node runs a room. first-node (the only one): the room's first node, where its founding viewer joined before anyone else.",
        valueName: "first-node"))
    var ownerHint: OwnerHint = .firstNode

    @Option(help: "Number of rooms.")
    var rooms = 1

    @Option(help: "Viewers per room (they only watch).")
    var viewers = 10

    @Option(help: "Drivers per room (they watch and play the script).")
    var drivers = 1

    @Option(help: "Gesture script the drivers play: \(GestureScript.allCases.map(\.rawValue).joined(separator: ", ")).")
    var script: GestureScript = .fling

    @Option(help: ArgumentHelp(
        "Play a recording instead of --script: every driver sends its inputs with their original timing, over and over (docs/recording.md; 'scrollcast record' writes one).",
        valueName: "file"))
    var replay: String?

    @Option(name: .customLong("protocol"),
            help: "Protocol version: v2 (binary frames, texts once) or v1 (JSON text).")
    var wireProtocol: ProtocolOption = .v2

    @Option(help: "Seed of the gesture scripts (same seed, same inputs).")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp(
        "Put an emulated link between the connections and the server (docs/links.md): \(LinkProfile.all.map(\.name).joined(separator: ", ")). The emulator runs in this process on its own thread; its timing error and CPU are in the report. One --url only.",
        valueName: "profile"))
    var link: String?

    @Flag(help: ArgumentHelp(
        "Check against a native replica of the engine, one per room: in the frames stream every frame (connections join with 'inputs': true, and each room's frames are computed from the relayed inputs and compared byte for byte, sentAt aside); with --stream inputs every beat's hash, a keyframe asked on a mismatch. A mismatch fails the run (docs/benchmarks.md, Replica check and Inputs stream)."))
    var replica = false

    @Option(help: ArgumentHelp(
        "What every connection receives: frames (the default), or inputs (the engine's state, then batches of changes and hashed beats; see --stream inputs above).",
        valueName: "frames|inputs"))
    var stream: StreamOption = .frames

    @Option(help: ArgumentHelp(
        "With --stream inputs: the batch period every connection asks for ('batchMs' in its join, 1–1000 ms; docs/protocol.md, \"The inputs stream\"). Default: the server's, one frame period.",
        valueName: "ms"))
    var batchMs: Int?

    @Option(help: .hidden)
    var testFault: TestFault?

    @Option(help: "Seconds to measure, after the ramp.")
    var duration: Double = 10

    @Option(help: "Seconds over which to open the connections (0: all at once).")
    var ramp: Double = 0

    @Option(help: "Write the report as JSON to this path.")
    var json: String?

    @Option(help: "Rooms are named PREFIX-0, PREFIX-1, ...")
    var roomPrefix = "load"

    @Option(help: "A connection keeps up while frames arrive within this many ms of their sentAt; only its sequence gaps count as missed.")
    var keptUpMs: Double = 50

    @Option(help: ArgumentHelp(
        "Client threads; the rooms are split between them. (default: half the online CPUs, leaving the rest to a server on the same machine; here \(ThreadCount.defaultThreads(rooms: 1_000)) for \(ThreadCount.onlineProcessors) CPUs; at most \(ThreadCount.defaultCap) and at most --rooms)",
        discussion: "One thread reads every frame of its rooms; past about 1000 viewers a single thread is the bottleneck, not the server.",
        valueName: "n"))
    var threads: Int?

    /// `--threads`, or the default for this machine and this many rooms.
    var threadCount: Int { threads ?? ThreadCount.defaultThreads(rooms: rooms) }

    func validate() throws {
        guard rooms >= 1, rooms <= 100_000 else { throw ValidationError("--rooms must be 1...100000") }
        guard viewers >= 0, drivers >= 0 else { throw ValidationError("--viewers and --drivers must not be negative") }
        guard viewers + drivers >= 1 else { throw ValidationError("each room needs at least one viewer or driver") }
        guard rooms * (viewers + drivers) <= 100_000 else { throw ValidationError("at most 100000 connections in all") }
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be 0 < seconds ≤ 86400") }
        guard ramp >= 0, ramp <= 3_600 else { throw ValidationError("--ramp must be 0...3600 seconds") }
        guard keptUpMs > 0, keptUpMs.isFinite else { throw ValidationError("--kept-up-ms must be positive") }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
        guard !roomPrefix.isEmpty, roomPrefix.count <= 50, roomPrefix.allSatisfy(allowed.contains) else {
            throw ValidationError("--room-prefix must be 1–50 characters of A–Z a–z 0–9 _ - .")
        }
        if let threads {
            guard threads >= 1, threads <= ThreadCount.maximum else {
                throw ValidationError("--threads must be 1...\(ThreadCount.maximum)")
            }
            guard threads <= rooms else {
                throw ValidationError("--threads \(threads) is more than --rooms \(rooms): a room's connections all run on one thread")
            }
        }
        let nodes: NodeList
        do { nodes = try NodeList(urls: url) } catch { throw ValidationError("\(error)") }
        if let link {
            guard LinkProfile.named(link) != nil else {
                throw ValidationError("unknown --link '\(link)'; choose one of \(LinkProfile.all.map(\.name).joined(separator: ", "))")
            }
            guard !nodes.isCluster else { throw ValidationError("--link takes one --url (one emulated link to one server)") }
        }
        if stream == .inputs {
            guard viewers >= 1 else {
                throw ValidationError("--stream inputs needs --viewers ≥ 1: input-to-replica is measured at the viewers, and a room's replica runs on one of them")
            }
        }
        if let batchMs {
            guard stream == .inputs else { throw ValidationError("--batch-ms needs --stream inputs") }
            guard ScrollWire.batchPeriodRange.contains(batchMs) else {
                throw ValidationError("--batch-ms must be in \(ScrollWire.batchPeriodRange.lowerBound)…\(ScrollWire.batchPeriodRange.upperBound); got \(batchMs)")
            }
        }
        if let testFault {
            guard stream == .inputs else { throw ValidationError("--test-fault needs --stream inputs") }
            guard testFault != .replicaDropsChange || replica else {
                throw ValidationError("--test-fault replica-drops-change needs --replica")
            }
        }
        if nodes.isCluster, viewers < 1 {
            throw ValidationError("with several --url nodes each room needs --viewers ≥ 1: its first viewer founds it on its first node")
        }
    }

    func run() throws {
        let nodes = try NodeList(urls: url)
        FileDescriptorLimit.raiseToMaximum()
        for address in nodes.addresses { try checkServerListens(address) }

        let scrapers = nodes.addresses.map(MetricsScraper.init(address:))
        let before = scrapeSkipped(scrapers)

        let recording: RecordedScript?
        do {
            recording = try replay.map(RecordedScript.init(path:))
        } catch {
            throw failure("\(error)")
        }
        let emulated: InProcessLink?
        do {
            emulated = try link.flatMap(LinkProfile.named).map { try InProcessLink(profile: $0, seed: seed, server: nodes[0]) }
        } catch {
            throw failure("cannot start the link emulator: \(error)")
        }
        let plan = LoadPlan(
            nodes: try emulated.map { try NodeList(urls: $0.address.webSocketURL) } ?? nodes, driverNode: driverNode, wireVersion: wireProtocol.version, rooms: rooms, viewersPerRoom: viewers, driversPerRoom: drivers,
            script: script, recording: recording, seed: seed, durationSeconds: duration, rampSeconds: ramp,
            roomPrefix: roomPrefix, keptUpMs: keptUpMs, threads: threadCount, replica: replica,
            stream: stream.stream, batchMs: batchMs, testFault: testFault)
        let outcome: LoadRun.Outcome
        do {
            outcome = try LoadRun(plan: plan).run()
        } catch {
            _ = emulated?.stop()
            throw error
        }
        let linkReport = emulated.map { LinkReport($0.stop()) }

        let after = scrapeSkipped(scrapers)
        let skipped = before.flatMap { start in after.map { $0 - start } }
        var report = LoadReport(plan: plan, statistics: outcome.statistics, measuredSeconds: outcome.measuredSeconds, skippedFrames: skipped, link: linkReport)
        // The report names the server, not the emulator's port in front of it.
        report.url = nodes.description
        print(report.table())
        if let json {
            do { try report.json().write(to: URL(fileURLWithPath: json)) } catch {
                throw failure("cannot write --json \(json): \(error.localizedDescription)")
            }
        }
        try judge(report)
    }

    /// Tells "nothing listens there" apart from a server that refuses WebSockets, before
    /// thousands of connections fail one by one.
    private func checkServerListens(_ address: ServerAddress) throws {
        do {
            _ = try TCPConnection(host: address.host, port: address.port)
        } catch let failure as TCPConnection.Failure where failure.refused {
            throw self.failure("no server at \(address.webSocketURL): connection refused (is scrollcast running on port \(address.port)?)")
        } catch {
            throw self.failure("cannot reach \(address.webSocketURL): \(error)")
        }
    }

    /// The skipped-frames counters of every node, summed; nil (with a warning) if one cannot be read.
    private func scrapeSkipped(_ scrapers: [MetricsScraper]) -> Double? {
        var total = 0.0
        for scraper in scrapers {
            do {
                let samples = try scraper.scrape()
                guard let skipped = MetricsScraper.skippedFrames(in: samples) else {
                    warn("\(scraper.address.metricsURL) has no skipped-frames counter; skippedFrames will be null")
                    return nil
                }
                total += skipped
            } catch {
                warn("cannot read \(scraper.address.metricsURL): \(error); skippedFrames will be null")
                return nil
            }
        }
        return total
    }

    /// Non-zero exit when the run failed or measured nothing, with the reason on stderr.
    private func judge(_ report: LoadReport) throws {
        var problems: [String] = []
        if report.connectFailures > 0 {
            let top = report.errorReasons.max { $0.value < $1.value }.map { " (most common: \($0.key), \($0.value)×)" } ?? ""
            problems.append("\(report.connectFailures) of \(report.connections) connections failed\(top)")
        }
        if report.disconnects > 0 {
            problems.append("the server closed \(report.disconnects) joined connections")
        }
        if let inputs = report.inputs {
            problems += Self.inputsProblems(inputs, drivers: report.drivers)
        } else if report.framesReceived == 0 {
            problems.append("nothing measured: no frames received in the measurement window")
        } else if report.drivers > 0 && report.latencyMs == nil {
            problems.append("nothing measured: no driver input was answered by a frame")
        }
        if let mismatches = report.identityMismatches, mismatches > 0 {
            let first = report.identityMismatchExamples?.first.map { ", first: \($0)" } ?? ""
            problems.append("identity check failed: \(mismatches) (room, seq) pairs were delivered with different bytes\(first)")
        }
        if let replica = report.replica, replica.mismatches > 0 {
            let first = replica.mismatchExamples.first.map { ", first: \($0)" } ?? ""
            problems.append("replica check failed: \(replica.mismatches) of \(replica.compared) frames differ from the replica's\(first)")
        }
        guard problems.isEmpty else { throw failure(problems.joined(separator: "; ")) }
    }

    /// What fails a run of the inputs stream: nothing received, no input reaching a watcher,
    /// missed changes, and with `--replica` no beat checked or a beat mismatched.
    static func inputsProblems(_ inputs: InputsReport, drivers: Int) -> [String] {
        var problems: [String] = []
        if inputs.batches + inputs.beats == 0 {
            problems.append("nothing measured: no batch or beat received in the measurement window")
        } else if drivers > 0 && inputs.inputToReplicaMs == nil {
            problems.append("nothing measured: no driver input reached a watcher")
        }
        if inputs.missedChanges > 0 {
            problems.append("\(inputs.missedChanges) changes missing from the viewers' batches")
        }
        if let replica = inputs.replica {
            if replica.beatsMismatched > 0 {
                let first = replica.mismatchExamples.first.map { ", first: \($0)" } ?? ""
                problems.append("replica check failed: \(replica.beatsMismatched) of \(replica.beatsChecked) beats differ from the replica's, \(replica.keyframes) keyframes asked\(first)")
            } else if replica.beatsChecked == 0 {
                problems.append("nothing measured: no beat checked by a replica")
            }
        }
        return problems
    }

    private func warn(_ message: String) {
        FileHandle.standardError.write(Data("scrollcast-load: warning: \(message)\n".utf8))
    }

    private func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("scrollcast-load: error: \(message)\n".utf8))
        return ExitCode(1)
    }
}

extension GestureScript: ExpressibleByArgument {}
extension TestFault: ExpressibleByArgument {}

/// `--stream`: which stream every connection joins.
enum StreamOption: String, CaseIterable, ExpressibleByArgument {
    case frames, inputs

    var stream: ViewerStream { self == .frames ? .frames : .inputs }
}
extension NodePlacement.DriverNode: ExpressibleByArgument {}

/// `--owner-hint`: how a cluster run knows which node runs a room, without asking Redis.
enum OwnerHint: String, CaseIterable, ExpressibleByArgument {
    /// The room's first node: its founding viewer joined there before any other connection of
    /// the room, and the first viewer to join a room creates it on its node.
    case firstNode = "first-node"
}

/// `--protocol`: the subprotocol every connection offers.
enum ProtocolOption: String, CaseIterable, ExpressibleByArgument {
    case v1, v2

    var version: WireVersion { self == .v1 ? .v1 : .v2 }
}
