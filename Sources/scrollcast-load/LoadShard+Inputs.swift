import ScrollEngine
import ScrollWire
import WebSockets

/// `--stream inputs` on one shard: its rooms' change tables (`InputsRoom`), drivers by the
/// server's name for them, the rooms' replicas with `--replica` (`InputsReplica`), and what
/// they counted.
struct ShardInputs {
    var rooms: [Int: InputsRoom] = [:]
    var drivers: [Int: [String: LoadConnection]] = [:]
    /// By room and node (`LoadShard.replicaKey`): in a cluster each node's viewers are checked
    /// against what that node relayed.
    var replicas: [Int: InputsReplica] = [:]
    var counts = InputsCounts()
}

extension LoadShard {
    /// What every connection sends once connected: in the inputs stream, with this build's engine version.
    func joinRequest(for connection: LoadConnection) -> JoinRequest {
        JoinRequest(room: connection.room, client: "scrollcast-load/1 \(connection.role.rawValue)",
                    inputs: plan.checksFrames, stream: plan.stream,
                    engine: plan.stream == .inputs ? EngineVersion.current : nil, batchMs: plan.batchMs)
    }

    /// A `batch` or `beat` of the inputs stream, read from its front (`InputsStreamHeader`; in
    /// version 1 decoded, told from its prefix); false for any other message, which goes the
    /// usual way.
    func inputsMessage(_ bytes: UnsafeBufferPointer<UInt8>, binary: Bool, on connection: LoadConnection) -> Bool {
        let header: InputsStreamHeader
        var decoded: ServerMessage?
        if binary {
            guard let front = InputsStreamHeader.v2(bytes) else { return false }
            header = front
        } else {
            guard bytes.starts(with: Self.batchPrefixV1) || bytes.starts(with: Self.beatPrefixV1),
                  let message = try? ServerMessageDecoder.decode(bytes), let front = InputsStreamHeader.of(message)
            else { return false }
            header = front
            decoded = message
        }
        switch header {
        case .batch(let changes, let count, let complete):
            batchArrived(bytes, decoded: decoded, changes: changes, count: count, complete: complete, on: connection)
        case .beat(let time, let complete, let hash):
            beatArrived(time: time, complete: complete, hash: hash, on: connection)
        }
        return true
    }

    private static let batchPrefixV1 = Array(#"{"type":"batch""#.utf8)
    private static let beatPrefixV1 = Array(#"{"type":"beat""#.utf8)

    /// A snapshot (the join's, a keyframe's, or the move to frames): where the connection's
    /// changes start; a driver is known by its name; a viewer may (re)start the room's replica.
    func inputsSnapshot(_ snapshot: SnapshotMessage, on connection: LoadConnection) {
        connection.changesHeld = snapshot.replica?.changes
        connection.completeMark = snapshot.replica?.time ?? -.infinity
        connection.awaitingMark = []
        if connection.phase == .live {
            // A keyframe or the move to frames: frames (if any) count from this snapshot's.
            connection.lastSeq = snapshot.frame.seq
            connection.framesSinceSnapshot = 0
        }
        let room = connection.roomNumber
        if connection.role == .driver { inputs.drivers[room, default: [:]][snapshot.viewer] = connection }
        guard plan.checksBeats, connection.role == .viewer else { return }
        let key = Self.replicaKey(connection)
        if inputs.replicas[key] == nil {
            inputs.replicas[key] = InputsReplica(room: connection.room, dropsChanges: plan.testFault == .replicaDropsChange)
        }
        if inputs.replicas[key]!.drives(connection.index) {
            withReplica(of: key) { $0.snapshot(snapshot, connection: connection.index, into: &$1) }
        }
    }

    private func isReference(_ connection: LoadConnection) -> Bool {
        plan.checksBeats && inputs.replicas[Self.replicaKey(connection)]?.reference == connection.index
    }

    private func batchArrived(_ bytes: UnsafeBufferPointer<UInt8>, decoded: ServerMessage?, changes: UInt64, count: UInt64,
                              complete: Double, on connection: LoadConnection) {
        guard connection.phase == .live, let held = connection.changesHeld, changes > held else { return }
        let reference = isReference(connection)
        connection.batchesReceived += 1
        if plan.testFault == .viewersDropBatch, !reference, connection.role == .viewer,
           connection.batchesReceived % Self.droppedBatchEvery == 0 {
            return  // test only: as if this batch never arrived
        }
        let room = connection.roomNumber
        let first = changes + 1 - count
        let measuring = measurements.measuring
        if measuring {
            inputs.counts.batches += 1
            inputs.counts.changes += changes - max(first - 1, held)
            if first > held + 1 { inputs.counts.missedChanges += first - held - 1 }
        }
        let learns = inputs.rooms[room]?.needsDecoding(through: changes) ?? true
        if learns || reference {
            guard let batch = Self.batch(bytes, decoded: decoded) else {
                measurements.problem("undecodable batch from the server")
                return
            }
            if learns {
                let drivers = inputs.drivers[room] ?? [:]
                inputs.rooms[room, default: InputsRoom()].learn(batch) { drivers[$0] }
            }
            if reference, !withReplica(of: Self.replicaKey(connection), { $0.batch(batch, into: &$1) }) { askKeyframe(connection) }
        }
        let now = Clock.monotonicMs()
        if let table = inputs.rooms[room], max(first, held + 1) <= changes {
            for change in max(first, held + 1)...changes {
                guard let input = table.input(ofChange: change), input.counted else { continue }
                if input.time <= complete {
                    settled(input, atMs: now, on: connection)
                } else {
                    connection.awaitingMark.append(input)
                    if connection.role == .viewer { inputs.counts.heldForMark += 1 }
                }
            }
        }
        connection.changesHeld = changes
        markArrived(complete, atMs: now, on: connection)
    }

    /// Every `droppedBatchEvery`-th batch of a viewer is ignored under `--test-fault viewers-drop-batch`.
    static let droppedBatchEvery = 10

    private func beatArrived(time: Double, complete: Double, hash: UInt64?, on connection: LoadConnection) {
        guard connection.phase == .live, connection.changesHeld != nil else { return }
        if measurements.measuring { inputs.counts.beats += 1 }
        markArrived(complete, atMs: Clock.monotonicMs(), on: connection)
        if let hash, isReference(connection),
           !withReplica(of: Self.replicaKey(connection), { $0.beat(time: time, hash: hash, into: &$1) }) {
            askKeyframe(connection)
        }
    }

    /// The connection's complete mark moved on: the inputs it held past their room time are settled.
    private func markArrived(_ complete: Double, atMs now: Double, on connection: LoadConnection) {
        connection.completeMark = max(connection.completeMark, complete)
        guard !connection.awaitingMark.isEmpty else { return }
        let mark = connection.completeMark
        for input in connection.awaitingMark where input.time <= mark { settled(input, atMs: now, on: connection) }
        connection.awaitingMark.removeAll { $0.time <= mark }
    }

    /// A watcher holds `input` with the mark past it: its input-to-replica latency. A driver
    /// holding its own input counts it as its input-to-batch latency (the report's `latencyMs`).
    private func settled(_ input: InputsRoom.Sent, atMs now: Double, on connection: LoadConnection) {
        let latency = now - input.sentMs
        if connection.role == .viewer {
            inputs.counts.inputToReplica.record(milliseconds: latency)
        } else if input.driver == connection.index {
            measurements.inputSettled(latencyMs: latency, ownerIsLocal: connection.ownerIsLocal)
        }
    }

    /// `body` on the room's replica and the shard's counts, both taken out of `inputs` for the
    /// call: two parts of one stored property of a class cannot be borrowed at once, and the
    /// replica out of its dictionary is not copied when it changes.
    private func withReplica<T>(of key: Int, _ body: (inout InputsReplica, inout InputsCounts) -> T) -> T {
        var replica = inputs.replicas.removeValue(forKey: key)!
        var counts = inputs.counts
        let result = body(&replica, &counts)
        inputs.replicas[key] = replica
        inputs.counts = counts
        return result
    }

    private func askKeyframe(_ connection: LoadConnection) {
        guard let id = connection.id else { return }
        inputs.counts.keyframes += 1
        client.send(OutboundMessage(text: ClientMessageEncoder.encode(.keyframe)), on: id)
    }

    private static func batch(_ bytes: UnsafeBufferPointer<UInt8>, decoded: ServerMessage?) -> BatchMessage? {
        if case .batch(let batch)? = decoded { return batch }
        var decoder = ServerMessageDecoderV2()  // a batch needs no texts
        guard case .message(.batch(let batch))? = try? decoder.decode(bytes) else { return nil }
        return batch
    }
}
