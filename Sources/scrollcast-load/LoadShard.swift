import ScrollEngine
import ScrollWire
import WebSockets

/// One client thread's share of a run: the connections of its rooms on its own WebSocket
/// client. It opens them over the ramp, plays the drivers' scripts, counts frames, measures
/// latencies, then closes everything. Every method except `start`, `startMeasuring` and
/// `shutdown` runs on this shard's service thread, which is why the mutable state needs no
/// lock (`@unchecked Sendable`); the main thread reads `statistics` only after `shutdown`.
final class LoadShard: WebSocketClientDelegate, @unchecked Sendable {
    private let plan: LoadPlan
    private let coordinator: RunCoordinator
    /// Where this shard publishes its counts for the progress line.
    let progress = ShardProgress()
    private var client: WebSocketClient!
    private var connections: [LoadConnection] = []
    private var byID: [ConnectionID: LoadConnection] = [:]
    private var nextToOpen = 0
    /// Connections opened per 10 ms tick: the run's budget split between the shards.
    private let openBatch: Int

    private(set) var statistics = LoadStatistics()
    private var measuring = false
    private var stopping = false
    private var finished = false
    private var reportedSettled = false
    private var runStartMs = 0.0
    private var measureStartMs = 0.0
    private(set) var measuredSeconds = 0.0
    /// Longest wait after the ramp for connections to settle before measuring anyway.
    private static let settleLimitMs = 30_000.0
    /// The whole run opens at most this many connections per 10 ms, so the listen backlog never overflows.
    private static let openBatchPerRun = 100

    // Progress: counts not yet published.
    private var intervalFrames: UInt64 = 0
    private var intervalLatency = LatencyHistogram()

    /// Prepares the connections of `rooms` (room numbers of the plan); nothing opens before `start`.
    init(plan: LoadPlan, rooms: [Int], coordinator: RunCoordinator) {
        self.plan = plan
        self.coordinator = coordinator
        openBatch = max(1, Self.openBatchPerRun / plan.threads)
        for room in rooms {
            let name = "\(plan.roomPrefix)-\(room)"
            for member in 0..<plan.connectionsPerRoom {
                // The run-wide index seeds the driver's script: same seed, same inputs, whatever the thread count.
                let index = room * plan.connectionsPerRoom + member
                let role: LoadConnection.Role = member < plan.driversPerRoom ? .driver : .viewer
                let connection = LoadConnection(index: index, room: name, role: role)
                if role == .driver {
                    connection.generator = GestureGenerator(
                        script: plan.script, seed: plan.seed &+ UInt64(index) &* 0x9E37_79B9)
                }
                connections.append(connection)
            }
        }
        // Interleave rooms in the opening order so a ramp fills every room at the same pace.
        connections.sort { ($0.index % plan.connectionsPerRoom, $0.index) < ($1.index % plan.connectionsPerRoom, $1.index) }
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
        client.schedule(afterMilliseconds: max(0, runStartMs + milliseconds(plan.rampSeconds) - Clock.monotonicMs())) {
            self.checkSettled()
        }
        client.schedule(afterMilliseconds: Self.publishEveryMs) { self.publishProgress() }
    }

    /// Opens every connection whose turn in the ramp has come, a bounded batch per tick so
    /// the listen backlog never overflows, then comes back in 10 ms for the rest.
    private func openDueConnections() {
        guard !stopping else { return }
        let elapsed = (Clock.monotonicMs() - runStartMs) / 1000
        let total = connections.count
        let due = plan.rampSeconds > 0 ? min(total, Int((elapsed / plan.rampSeconds * Double(total)).rounded(.up))) : total
        var opened = 0
        while nextToOpen < max(due, 1), nextToOpen < total, opened < openBatch {
            open(connections[nextToOpen])
            nextToOpen += 1
            opened += 1
        }
        if nextToOpen < total {
            client.schedule(afterMilliseconds: 10) { self.openDueConnections() }
        }
    }

    private func open(_ connection: LoadConnection) {
        connection.phase = .joining
        do {
            let id = try client.connect(url: plan.address.webSocketURL, subprotocol: ScrollWire.subprotocol, origin: nil)
            connection.id = id
            byID[id] = connection
        } catch {
            connection.phase = .closed
            statistics.connectFailures += 1
            statistics.error("connect failed: \(error)")
            finishIfEveryoneLeft()
        }
    }

    /// Reports "settled" once the ramp is over and every connection has its snapshot or has
    /// failed, so a slow handshake phase is not measured as steady state; a shard whose
    /// connections never settle reports anyway after `settleLimitMs`.
    private func checkSettled() {
        guard !stopping else { return }
        let settled = nextToOpen == connections.count
            && connections.allSatisfy { $0.phase == .live || $0.phase == .closed }
        let waited = Clock.monotonicMs() - runStartMs - milliseconds(plan.rampSeconds)
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
        measuring = true
        measureStartMs = Clock.monotonicMs()
        let end = windowStartMs + milliseconds(plan.durationSeconds)
        client.schedule(afterMilliseconds: max(0, end - measureStartMs)) { self.stop() }
    }

    private func stop() {
        guard !stopping else { return }
        if measuring { measuredSeconds = (Clock.monotonicMs() - measureStartMs) / 1000 }
        measuring = false
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
        if measuring { measuredSeconds = (Clock.monotonicMs() - measureStartMs) / 1000 }
        measuring = false
        publishProgress()
        // A shard that ended early must not hold back the others' measurement window.
        reportSettled()
        coordinator.shardFinished()
    }

    /// Ends this shard early when no connection is left open or opening: a server that is gone
    /// or refused everyone leaves nothing to wait for.
    private func finishIfEveryoneLeft() {
        guard nextToOpen == connections.count else { return }
        guard connections.allSatisfy({ $0.phase == .closed }) else { return }
        if !stopping {
            stopping = true
            coordinator.shardStopping()
            if measuring { measuredSeconds = (Clock.monotonicMs() - measureStartMs) / 1000 }
            measuring = false
        }
        finish()
    }

    private static let publishEveryMs = 250.0

    /// Hands the counts since the last call to the progress line, every `publishEveryMs`.
    private func publishProgress() {
        progress.publish(frames: intervalFrames, latency: intervalLatency, errorsSoFar: statistics.errors)
        intervalFrames = 0
        intervalLatency.reset()
        guard !finished else { return }
        client.schedule(afterMilliseconds: Self.publishEveryMs) { self.publishProgress() }
    }

    // MARK: Driving

    private func startScript(_ connection: LoadConnection) {
        guard var generator = connection.generator else { return }
        connection.gesture = generator.next()
        connection.generator = generator
        connection.step = 0
        connection.gestureOriginMs = Clock.monotonicMs()
        scheduleNextInput(connection)
    }

    private func scheduleNextInput(_ connection: LoadConnection) {
        guard let gesture = connection.gesture else { return }
        let due = connection.gestureOriginMs + gesture.inputs[connection.step].atMs
        let wait = max(0, due - Clock.monotonicMs())
        client.schedule(afterMilliseconds: wait) { self.sendNextInput(connection) }
    }

    private func sendNextInput(_ connection: LoadConnection) {
        guard connection.phase == .live, !stopping, let id = connection.id,
              var gesture = connection.gesture, var generator = connection.generator else { return }
        let input = gesture.inputs[connection.step]
        let now = Clock.monotonicMs()
        // `t` is the planned time, so the gesture's velocities are the script's own whatever
        // the timer slack; it never goes backwards because plans only move forward.
        let message = InputMessage(id: connection.nextInputID, clientTime: connection.gestureOriginMs + input.atMs, kind: input.kind)
        client.send(OutboundMessage(text: ClientMessageEncoder.input(message)), on: id)
        connection.pending.append(.init(id: connection.nextInputID, sentMs: now, counted: measuring))
        connection.nextInputID += 1
        if measuring { statistics.inputsSent += 1 }

        connection.step += 1
        if connection.step == gesture.inputs.count {
            connection.gestureOriginMs += gesture.lengthMs
            // A driver starved of timer time starts its next gesture now rather than
            // replaying the backlog in a burst (which would trip the server's rate limit).
            if now - connection.gestureOriginMs > 250 { connection.gestureOriginMs = now }
            gesture = generator.next()
            connection.generator = generator
            connection.gesture = gesture
            connection.step = 0
        }
        scheduleNextInput(connection)
    }

    // MARK: WebSocketClientDelegate

    func client(_ client: WebSocketClient, didConnect id: ConnectionID) {
        guard let connection = byID[id] else { return }
        if stopping {
            client.close(id, code: .normal, reason: "load test done")
            return
        }
        let join = JoinRequest(room: connection.room, client: "scrollcast-load/1 \(connection.role.rawValue)")
        client.send(OutboundMessage(text: ClientMessageEncoder.join(join)), on: id)
    }

    func client(_ client: WebSocketClient, didFailToConnect id: ConnectionID, reason: String) {
        guard let connection = byID.removeValue(forKey: id) else { return }
        connection.phase = .closed
        statistics.connectFailures += 1
        statistics.error("connect failed: \(reason)")
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
                statistics.disconnects += 1
                statistics.error("server closed a joined connection: \(how)\(why)")
            } else {
                statistics.connectFailures += 1
                statistics.error("server closed the connection before the snapshot: \(how)\(why)")
            }
        }
        finishIfEveryoneLeft()
    }

    func client(_ client: WebSocketClient, didReceive message: InboundMessage, from id: ConnectionID) {
        switch message {
        case .binary:
            guard byID[id] != nil else { return }
            statistics.error("binary message from the server")
        case .text(let text):
            var text = text
            text.withUTF8 { received(UnsafeRawBufferPointer($0), from: id) }
        }
    }

    /// Every text message lands here in place (no `String` per message: at thousands of frames a
    /// second that copy and its allocation were a visible share of the load generator's time).
    func client(_ client: WebSocketClient, didReceiveText utf8: UnsafeRawBufferPointer, from id: ConnectionID) {
        received(utf8, from: id)
    }

    private func received(_ raw: UnsafeRawBufferPointer, from id: ConnectionID) {
        guard let connection = byID[id] else { return }
        let utf8 = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
        let size = utf8.count
        if measuring { statistics.bytesReceived += UInt64(size) }
        if let header = ServerMessageDecoder.frameHeader(utf8) {
            receivedFrame(seq: header.seq, sentAt: header.sentAt, input: header.input, bytes: size, on: connection)
            return
        }
        let decoded: ServerMessage
        do {
            decoded = try ServerMessageDecoder.decode(utf8)
        } catch {
            statistics.error("undecodable message from the server: \(error)")
            return
        }
        switch decoded {
        case .snapshot(let snapshot):
            guard connection.phase == .joining else { return }
            connection.phase = .live
            connection.viewerName = snapshot.viewer
            connection.lastSeq = snapshot.frame.seq
            connection.lastLagMs = 0
            coordinator.connectionJoined()
            if connection.role == .driver { startScript(connection) }
        case .frame(let frame):
            // A frame another encoder wrote (the fast path only knows the server's own layout).
            receivedFrame(seq: frame.seq, sentAt: frame.sentAt, input: frame.input, bytes: size, on: connection)
        case .refused(let input, _, _):
            if let input, connection.pending.remove(id: input), measuring {
                statistics.inputsRefused += 1
            }
        case .error(let message):
            statistics.error("server error: \(message)")
        case .rowMoved, .presence:
            break // nothing to measure
        }
    }

    private func receivedFrame(seq: UInt64, sentAt: Double, input: AppliedInput?, bytes: Int, on connection: LoadConnection) {
        guard connection.phase == .live else { return }
        let lag = Clock.wallMs() - sentAt
        if let last = connection.lastSeq {
            if seq > last + 1, measuring {
                let gap = seq - last - 1
                if connection.lastLagMs <= plan.keptUpMs && lag <= plan.keptUpMs {
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

    private func milliseconds(_ seconds: Double) -> Double { seconds * 1000 }
}
