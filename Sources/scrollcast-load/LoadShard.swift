import ScrollEngine
import ScrollWire
import WebSockets

/// One client thread's share of a run: the connections of its rooms on its own WebSocket
/// client. It opens them over the ramp (`ConnectionRamp`), plays the drivers' scripts
/// (`LoadConnection+Script`), has frames and latencies counted (`ShardMeasurements`), then
/// closes everything. Every method except `start`, `startMeasuring` and
/// `shutdown` runs on this shard's service thread, which is why the mutable state needs no
/// lock (`@unchecked Sendable`); the main thread reads `statistics` only after `shutdown`.
final class LoadShard: WebSocketClientDelegate, @unchecked Sendable {
    let plan: LoadPlan
    private let coordinator: RunCoordinator
    /// Where this shard publishes its counts for the progress line.
    let progress = ShardProgress()
    private(set) var client: WebSocketClient!
    /// Every connection of the shard, in opening order.
    private let connections: [LoadConnection]
    private var byID: [ConnectionID: LoadConnection] = [:]
    /// Each room's founder, by room number (cluster runs only).
    private let founders: [Int: LoadConnection]
    private var ramp: ConnectionRamp
    var measurements: ShardMeasurements
    /// `--replica`: a replica per room and node (keyed `replicaKey`), so each node's viewers are
    /// checked against the inputs that node relayed, and what the checks counted.
    private var replicas: [Int: RoomReplica] = [:]
    private var replicaCounts = ReplicaCounts()
    /// `--stream inputs`: its rooms' changes, drivers and replicas (LoadShard+Inputs).
    var inputs = ShardInputs()

    private var stopping = false
    private var finished = false
    private var reportedSettled = false
    private var runStartMs = 0.0
    /// Longest wait after the ramp for connections to settle before measuring anyway.
    private static let settleLimitMs = 30_000.0

    /// What this shard counted; read it after `shutdown`.
    var statistics: LoadStatistics {
        var statistics = measurements.statistics
        statistics.replica = replicaCounts
        statistics.inputs = inputs.counts
        // Frames still waiting for their room's reference connection were never compared.
        statistics.replica.notCompared += UInt64(replicas.values.reduce(0) { $0 + $1.unresolved() })
        return statistics
    }
    /// How long this shard's measurement window was open; read it after `shutdown`.
    var measuredSeconds: Double { measurements.measuredSeconds }

    /// Prepares the connections of `rooms` (room numbers of the plan); nothing opens before `start`.
    init(plan: LoadPlan, rooms: [Int], coordinator: RunCoordinator) {
        self.plan = plan
        self.coordinator = coordinator
        let connections = rooms.flatMap(plan.connections(ofRoom:))
        self.connections = ConnectionRamp.openingOrder(connections, connectionsPerRoom: plan.connectionsPerRoom)
        founders = Dictionary(uniqueKeysWithValues: connections.filter(\.isFounder).map { ($0.roomNumber, $0) })
        ramp = ConnectionRamp(total: connections.count, rampSeconds: plan.rampSeconds, threads: plan.threads)
        measurements = ShardMeasurements(keptUpMs: plan.keptUpMs, nodes: plan.nodes, rooms: plan.rooms)
    }

    /// Starts the service thread and the ramp, counted from `runStartMs` (monotonic) so every
    /// shard ramps on the same schedule.
    func start(runStartMs: Double) throws {
        let client = WebSocketClient(delegate: self, maxMessageBytes: 4 << 20)
        self.client = client
        try client.start()
        client.execute { self.begin(runStartMs: runStartMs) }
    }

    /// Starts the measurement window (from any thread); the window ends `--duration` after
    /// `windowStartMs`, the moment the coordinator chose for every shard.
    func startMeasuring(windowStartMs: Double) {
        client.execute { self.measure(windowStartMs: windowStartMs) }
    }

    /// Stops the service thread (not from it). Connections still open are closed.
    func shutdown() {
        client?.shutdown()
    }

    // MARK: Schedule

    private func begin(runStartMs: Double) {
        self.runStartMs = runStartMs
        openDueConnections()
        client.schedule(afterMilliseconds: max(0, runStartMs + ramp.lengthMs - Clock.monotonicMs())) {
            self.checkSettled()
        }
        client.schedule(afterMilliseconds: Self.publishEveryMs) { self.publishProgress() }
    }

    /// Opens the connections whose turn in the ramp has come, then comes back a tick later for the rest.
    private func openDueConnections() {
        guard !stopping else { return }
        for position in ramp.due(elapsedSeconds: (Clock.monotonicMs() - runStartMs) / 1000) {
            // Founders open first; the ramp waits (in order) until a room's founder has its snapshot.
            guard mayOpen(connections[position]) else { break }
            open(connections[position])
            ramp.didOpen()
        }
        if !ramp.isComplete {
            client.schedule(afterMilliseconds: ConnectionRamp.tickMilliseconds) { self.openDueConnections() }
        }
    }

    /// Whether `connection` may open now: in a cluster run only once its room's founder has its
    /// snapshot (or failed), so that the room was created on the founder's node, the one the
    /// local/remote split takes for its owner.
    private func mayOpen(_ connection: LoadConnection) -> Bool {
        guard let founder = founders[connection.roomNumber], founder !== connection else { return true }
        return founder.phase == .live || founder.phase == .closed
    }

    private func open(_ connection: LoadConnection) {
        connection.phase = .joining
        do {
            let id = try client.connect(url: plan.nodes[connection.node].webSocketURL, subprotocol: plan.wireVersion.subprotocol, origin: nil)
            connection.id = id
            byID[id] = connection
        } catch {
            connection.phase = .closed
            measurements.connectFailed("connect failed: \(error)")
            finishIfEveryoneLeft()
        }
    }

    /// Reports "settled" once the ramp is over and every connection has its snapshot or has
    /// failed, so a slow handshake phase is not measured as steady state; a shard whose
    /// connections never settle reports anyway after `settleLimitMs`.
    private func checkSettled() {
        guard !stopping else { return }
        let settled = ramp.isComplete
            && connections.allSatisfy { $0.phase == .live || $0.phase == .closed }
        let waited = Clock.monotonicMs() - runStartMs - ramp.lengthMs
        if !settled && waited < Self.settleLimitMs {
            client.schedule(afterMilliseconds: 50) { self.checkSettled() }
            return
        }
        reportSettled()
    }

    private func reportSettled() {
        guard !reportedSettled else { return }
        reportedSettled = true
        coordinator.shardSettled()
    }

    private func measure(windowStartMs: Double) {
        guard !stopping else { return }
        let now = Clock.monotonicMs()
        measurements.openWindow(atMs: now)
        let end = windowStartMs + plan.durationSeconds * 1000
        client.schedule(afterMilliseconds: max(0, end - now)) { self.stop() }
    }

    private func stop() {
        guard !stopping else { return }
        measurements.closeWindow(atMs: Clock.monotonicMs())
        stopping = true
        coordinator.shardStopping()
        for connection in connections where connection.phase == .live || connection.phase == .joining {
            if let id = connection.id { client.close(id, code: .normal, reason: "load test done") }
        }
        // Closing handshakes normally finish in milliseconds; a server that never answers
        // must not keep the report waiting.
        client.schedule(afterMilliseconds: 3000) { self.finish() }
        finishIfEveryoneLeft()
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        measurements.closeWindow(atMs: Clock.monotonicMs())
        publishProgress()
        // A shard that ended early must not hold back the others' measurement window.
        reportSettled()
        coordinator.shardFinished()
    }

    /// Ends this shard early when no connection is left open or opening: a server that is gone
    /// or refused everyone leaves nothing to wait for.
    private func finishIfEveryoneLeft() {
        guard ramp.isComplete else { return }
        guard connections.allSatisfy({ $0.phase == .closed }) else { return }
        if !stopping {
            stopping = true
            coordinator.shardStopping()
            measurements.closeWindow(atMs: Clock.monotonicMs())
        }
        finish()
    }

    private static let publishEveryMs = 250.0

    /// Hands the counts since the last call to the progress line, every `publishEveryMs`.
    private func publishProgress() {
        measurements.publish(to: progress)
        guard !finished else { return }
        client.schedule(afterMilliseconds: Self.publishEveryMs) { self.publishProgress() }
    }

    // MARK: Driving

    private func startScript(_ connection: LoadConnection) {
        connection.startScript(atMs: Clock.monotonicMs())
        scheduleNextInput(connection)
    }

    private func scheduleNextInput(_ connection: LoadConnection) {
        guard let due = connection.nextInputDueMs else { return }
        client.schedule(afterMilliseconds: max(0, due - Clock.monotonicMs())) { self.sendNextInput(connection) }
    }

    private func sendNextInput(_ connection: LoadConnection) {
        guard connection.phase == .live, !stopping, let id = connection.id,
              let message = connection.takeNextInput(sentAtMs: Clock.monotonicMs(), counted: measurements.measuring)
        else { return }
        client.send(OutboundMessage(text: ClientMessageEncoder.input(message)), on: id)
        measurements.inputSent()
        scheduleNextInput(connection)
    }

    // MARK: WebSocketClientDelegate

    func client(_ client: WebSocketClient, didConnect id: ConnectionID) {
        guard let connection = byID[id] else { return }
        if stopping {
            client.close(id, code: .normal, reason: "load test done")
            return
        }
        client.send(OutboundMessage(text: ClientMessageEncoder.join(joinRequest(for: connection))), on: id)
    }

    func client(_ client: WebSocketClient, didFailToConnect id: ConnectionID, reason: String) {
        guard let connection = byID.removeValue(forKey: id) else { return }
        connection.phase = .closed
        measurements.connectFailed("connect failed: \(reason)")
        finishIfEveryoneLeft()
    }

    func client(_ client: WebSocketClient, didClose id: ConnectionID, code: WebSockets.CloseCode?, reason: String) {
        guard let connection = byID.removeValue(forKey: id) else { return }
        let wasLive = connection.phase == .live
        connection.phase = .closed
        if wasLive { coordinator.connectionLeft() }
        if !stopping {
            let how = code.map { "close \($0.rawValue)" } ?? "connection lost"
            let why = reason.isEmpty ? "" : " \(reason)"
            if wasLive {
                measurements.disconnected("server closed a joined connection: \(how)\(why)")
            } else {
                measurements.connectFailed("server closed the connection before the snapshot: \(how)\(why)")
            }
        }
        finishIfEveryoneLeft()
    }

    func client(_ client: WebSocketClient, didReceive message: InboundMessage, from id: ConnectionID) {
        switch message {
        case .binary(let bytes):
            bytes.withUnsafeBytes { received($0, binary: true, from: id) }
        case .text(let text):
            var text = text
            text.withUTF8 { received(UnsafeRawBufferPointer($0), binary: false, from: id) }
        }
    }

    /// Every message lands here in place (no `String` or array per message: at thousands of
    /// frames a second that copy and its allocation were a visible share of the load generator's time).
    func client(_ client: WebSocketClient, didReceiveText utf8: UnsafeRawBufferPointer, from id: ConnectionID) {
        received(utf8, binary: false, from: id)
    }

    func client(_ client: WebSocketClient, didReceiveBinary bytes: UnsafeRawBufferPointer, from id: ConnectionID) {
        received(bytes, binary: true, from: id)
    }

    private func received(_ raw: UnsafeRawBufferPointer, binary: Bool, from id: ConnectionID) {
        guard let connection = byID[id] else { return }
        let bytes = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
        let size = bytes.count
        measurements.messageReceived(bytes: size)
        guard binary == (plan.wireVersion == .v2) else {
            measurements.problem("\(binary ? "binary" : "text") message from the server on \(plan.wireVersion.subprotocol)")
            return
        }
        if plan.stream == .inputs, inputsMessage(bytes, binary: binary, on: connection) { return }
        if plan.checksFrames {
            replicaMessage(bytes, binary: binary, on: connection)
            // Every connection gets every `applied` message; only the reference's replica reads them.
            if RoomReplica.isApplied(bytes, version: plan.wireVersion) { return }
        }
        // Frames are read from their fixed front (seq, sentAt, input) without decoding the rest;
        // in version 2 that needs none of the room's texts, so no connection keeps a text table.
        let header = binary ? ServerMessageDecoderV2.frameHeader(bytes) : ServerMessageDecoder.frameHeader(bytes)
        if let header {
            frameArrived(seq: header.seq, sentAt: header.sentAt, input: header.input, message: bytes, on: connection)
            return
        }
        let decoded: ServerMessage
        do {
            if binary {
                // A snapshot brings its own texts; anything else but a frame needs none.
                var decoder = ServerMessageDecoderV2()
                switch try decoder.decode(bytes) {
                case .message(let message): decoded = message
                case .texts:
                    measurements.textsReceived(bytes: size)
                    return
                }
            } else {
                decoded = try ServerMessageDecoder.decode(bytes)
            }
        } catch {
            measurements.problem("undecodable message from the server: \(error)")
            return
        }
        switch decoded {
        case .snapshot(let snapshot):
            if plan.stream == .inputs { inputsSnapshot(snapshot, on: connection) }
            guard connection.phase == .joining else { return }
            connection.phase = .live
            connection.viewerName = snapshot.viewer
            connection.lastSeq = snapshot.frame.seq
            connection.lastLagMs = 0
            connection.framesSinceSnapshot = 0
            coordinator.connectionJoined()
            if connection.role == .driver { startScript(connection) }
        case .frame(let frame):
            // A frame another encoder wrote (the fast path only knows the server's own layout).
            frameArrived(seq: frame.seq, sentAt: frame.sentAt, input: frame.input, message: bytes, on: connection)
        case .refused(let input, _, _):
            measurements.inputRefused(input, on: connection)
        case .error(let message):
            measurements.problem("server error: \(message)")
        case .rowMoved, .presence, .resumed, .applied, .beat, .batch, .sharing, .held, .pong:
            break // nothing to measure
        }
    }

    private func frameArrived(seq: UInt64, sentAt: Double, input: AppliedInput?, message: UnsafeBufferPointer<UInt8>,
                              on connection: LoadConnection) {
        measurements.frameArrived(seq: seq, sentAt: sentAt, input: input, message: message, on: connection)
        if plan.checksFrames {
            replicas[Self.replicaKey(connection), default: RoomReplica(room: connection.room, node: connection.node, version: plan.wireVersion)]
                .frame(seq: seq, bytes: message, connection: connection.index, into: &replicaCounts)
        }
    }

    static func replicaKey(_ connection: LoadConnection) -> Int { connection.roomNumber &* 64 &+ connection.node }

    /// `--replica`: the message goes to the room's replica when this connection drives it
    /// (`RoomReplica`); the others' frames are only compared (`frameArrived`).
    private func replicaMessage(_ bytes: UnsafeBufferPointer<UInt8>, binary: Bool, on connection: LoadConnection) {
        let number = Self.replicaKey(connection)
        guard replicas[number]?.drives(connection.index, joining: connection.phase == .joining) ?? true else { return }
        replicas[number, default: RoomReplica(room: connection.room, node: connection.node, version: plan.wireVersion)]
            .referenceMessage(bytes, connection: connection.index, into: &replicaCounts)
    }
}
