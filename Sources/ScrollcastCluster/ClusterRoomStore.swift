import ScrollcastRecording
import ScrollcastRooms


/// The room store of a cluster: each room's settings, row order, resting offset and last
/// published frame number in one hash of the backend (Redis), and its log in a list (newest
/// `logLength` lines, in the recording format). Run Redis with its append-only file on, so
/// what is committed survives a Redis restart.
///
/// Every write is checked in the backend against this node's lease on the room (fencing): a
/// node that lost a room cannot change it. A row move's completion comes back on the room
/// thread once the backend has it, so the room announces only stored moves.
final class ClusterRoomStore: RoomStore {
    private unowned let node: ClusterNode
    private let logLength: Int
    private let onWriteFailure: (String) -> Void
    private var pendingLog: [String: [[UInt8]]] = [:]
    private var writeFailed = false

    /// Log lines per write: Lua's `unpack` takes a few thousand values at most.
    nonisolated static let linesPerAppend = 500

    init(node: ClusterNode, logLength: Int, onWriteFailure: @escaping (String) -> Void) {
        self.node = node
        self.logLength = logLength
        self.onWriteFailure = onWriteFailure
    }

    /// Rooms are restored by the cluster's links, which read them asynchronously
    /// (`load(room:completion:)`): a synchronous read would block the room thread on Redis.
    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? {
        throw RoomStoreError("the cluster's store is read asynchronously by the cluster's links")
    }

    /// What the backend has of room `name`, and the last frame number its viewers on other
    /// nodes got; on the room thread. A room of a scene uploaded to another node that this node
    /// has not read yet waits for it to be read: restored without it, the room would start
    /// afresh with another scene.
    func load(room name: String, completion: @escaping (Result<LoadedRoom?, ClusterBackendError>) -> Void) {
        node.backend.load(room: name) { [node] result in
            let loaded = result.map { Self.storedRoom(name: name, fields: $0) }
            guard case .success(let room?) = loaded, let sync = node.sceneSync,
                  !node.registry.scenes.contains(room.stored.settings.sceneName) else { return completion(loaded) }
            let (hop, box) = (SchedulerHop(scheduler: node.scheduler), RoomBound((completion, loaded)))
            sync.ensure(room.stored.settings.sceneName) { hop.hop { box.value.0(box.value.1) } }
        }
    }

    func roomCreated(_ settings: RoomSettings) {
        write(.created(room: settings.name, scene: settings.sceneName, keyDigest: settings.driverKeyDigest ?? ""))
    }

    func append(_ entry: RoomLogEntry, toRoom room: String) {
        let line: RecordingEntry
        switch entry {
        case let .input(viewer, event): line = .input(viewer: viewer, event: event)
        case let .cancel(viewer, event, _): line = .cancel(viewer: viewer, event: event)
        case let .frame(sequence, time): line = .frame(sequence: sequence, time: time)
        }
        pendingLog[room, default: []].append(RecordingEncoder.line(line))
    }

    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        flushLog(of: move.room)
        guard let lease = node.lease(of: move.room) else {
            return completion(.failure(RoomStoreError("this node no longer runs room '\(move.room)'")))
        }
        let write = StoreWrite.commitMove(room: move.room, rowMoveVersion: move.rowMoveVersion, order: RowOrderText.encode(move.rowOrder))
        node.backend.write(write, under: lease) { [weak self] result in
            switch result {
            case .success(.done):
                self?.writeFailed = false
                completion(.success(()))
            case .success(.fenced):
                self?.node.lost(room: move.room, holder: nil)
                completion(.failure(RoomStoreError("room '\(move.room)' runs on another node now")))
            case .success(.outOfOrder):
                completion(.failure(RoomStoreError("move \(move.rowMoveVersion) of room '\(move.room)' does not follow the stored one")))
            case .failure(let error):
                self?.failed("row move of room '\(move.room)': \(error)")
                completion(.failure(RoomStoreError(error.message)))
            }
        }
    }

    func roomEvicted(named name: String) {
        flushLog(of: name)
    }

    var isAcceptingWrites: Bool { node.backend.isConnected && !writeFailed }

    func checkpoint(_ checkpoint: RoomCheckpoint) {
        write(.checkpoint(room: checkpoint.room, restingOffset: checkpoint.restingOffset))
    }

    /// Writes the waiting log lines; a failed write is retried by the next move's check.
    func housekeeping() {
        for room in Array(pendingLog.keys) { flushLog(of: room) }
        if writeFailed, node.backend.isConnected { writeFailed = false }
    }

    /// Drops what waits for room `name` (it runs elsewhere now).
    func forget(room name: String) {
        pendingLog[name] = nil
    }

    // MARK: -

    private func flushLog(of room: String) {
        guard var lines = pendingLog.removeValue(forKey: room), !lines.isEmpty else { return }
        while !lines.isEmpty {
            let batch = Array(lines.prefix(Self.linesPerAppend))
            lines.removeFirst(batch.count)
            write(.appendLog(room: room, lines: batch, keep: logLength))
        }
    }

    private func write(_ write: StoreWrite) {
        let room = write.room
        guard let lease = node.lease(of: room) else { return }
        node.backend.write(write, under: lease) { [weak self] result in
            switch result {
            case .success(.fenced): self?.node.lost(room: room, holder: nil)
            case .success: break
            case .failure(let error): self?.failed("write of room '\(room)': \(error)")
            }
        }
    }

    private func failed(_ message: String) {
        if !writeFailed { onWriteFailure(message) }
        writeFailed = true
    }

    /// A stored room from the fields of its hash; nil when there is none.
    static func storedRoom(name: String, fields: [String: String]) -> LoadedRoom? {
        guard let scene = fields["scene"] else { return nil }
        let key = fields["key"].flatMap { $0.isEmpty ? nil : $0 }
        let settings = RoomSettings(name: name, sceneName: scene, driverKeyDigest: key)
        let stored = StoredRoom(settings: settings, rowOrder: fields["order"].flatMap(RowOrderText.decode) ?? [],
                                rowMoveVersion: fields["version"].flatMap { Int($0) } ?? 0,
                                restingOffset: fields["rest"].flatMap { Double($0) })
        return LoadedRoom(stored: stored, sequence: fields["seq"].flatMap { UInt64($0) } ?? 0)
    }
}

extension StoreWrite {
    /// The room written.
    var room: String {
        switch self {
        case .created(let room, _, _), .commitMove(let room, _, _), .checkpoint(let room, _), .appendLog(let room, _, _): room
        }
    }
}
