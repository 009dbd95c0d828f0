import ScrollcastRecording
import ScrollcastServer
import Redis

/// The room store of a cluster: each room's settings, row order, resting offset and last
/// published frame number in one Redis hash, and its log in a Redis list (newest
/// `logLength` lines, in the recording format). Run Redis with its append-only file on, so
/// what is committed survives a Redis restart.
///
/// Every write runs as a script that first checks this node still holds the room's lease
/// (fencing): a node that lost a room cannot change it. A row move's completion comes back on
/// the room thread once Redis has it, so the room announces only stored moves.
final class RedisRoomStore: RoomStore {
    private unowned let redis: RedisScripting
    private let keys: ClusterKeys
    private let logLength: Int
    private let onWriteFailure: (String) -> Void
    private var pendingLog: [String: [[UInt8]]] = [:]
    private var writeFailed = false

    /// Log lines per script call: Lua's `unpack` takes a few thousand values at most.
    static let linesPerAppend = 500

    init(redis: RedisScripting, keys: ClusterKeys, logLength: Int, onWriteFailure: @escaping (String) -> Void) {
        self.redis = redis
        self.keys = keys
        self.logLength = logLength
        self.onWriteFailure = onWriteFailure
    }

    /// Rooms are restored by the cluster's directory, which reads them asynchronously
    /// (`load(room:completion:)`): a synchronous read would block the room thread on Redis.
    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? {
        throw RoomStoreError("the cluster's store is read asynchronously by the cluster directory")
    }

    /// What Redis has of room `name`, and the last frame number its viewers on other nodes got;
    /// on the room thread.
    func load(room name: String, completion: @escaping (Result<(StoredRoom, UInt64)?, RedisError>) -> Void) {
        redis.run("return redis.call('HGETALL', KEYS[1])", keys: [keys.state(name)], arguments: []) { result in
            completion(result.map { Self.storedRoom(name: name, fields: $0) })
        }
    }

    func roomCreated(_ settings: RoomSettings) {
        write(ClusterScripts.created, room: settings.name, keys: [keys.state(settings.name), keys.log(settings.name)],
              [settings.sceneName, settings.driverKeyDigest ?? ""])
    }

    func append(_ entry: RoomLogEntry, toRoom room: String) {
        let line: RecordingEntry
        switch entry {
        case let .input(viewer, event): line = .input(viewer: viewer, event: event)
        case let .cancelOnLeave(viewer, event): line = .cancel(viewer: viewer, event: event)
        case let .frame(sequence, time): line = .frame(sequence: sequence, time: time)
        }
        pendingLog[room, default: []].append(RecordingEncoder.line(line))
    }

    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        flushLog(of: move.room)
        guard let lease = redis.leaseValue(of: move.room) else {
            return completion(.failure(RoomStoreError("this node no longer runs room '\(move.room)'")))
        }
        redis.run(ClusterScripts.commitMove, keys: [keys.lease(move.room), keys.state(move.room)],
                  [lease, String(move.version), RowOrderText.encode(move.rowOrder)]) { [weak self] result in
            switch result {
            case .success(.integer(1)):
                self?.writeFailed = false
                completion(.success(()))
            case .success(.integer(-1)):
                self?.redis.fenced(room: move.room)
                completion(.failure(RoomStoreError("room '\(move.room)' runs on another node now")))
            case .success(let other):
                completion(.failure(RoomStoreError("move \(move.version) of room '\(move.room)' does not follow the stored one (\(other))")))
            case .failure(let error):
                self?.failed("row move of room '\(move.room)': \(error)")
                completion(.failure(RoomStoreError(error.message)))
            }
        }
    }

    func roomEvicted(named name: String) {
        flushLog(of: name)
    }

    var isAcceptingWrites: Bool { redis.isConnected && !writeFailed }

    func checkpoint(_ checkpoint: RoomCheckpoint) {
        write(ClusterScripts.checkpoint, room: checkpoint.room, keys: [keys.state(checkpoint.room)],
              [String(checkpoint.restingOffset)])
    }

    /// Writes the waiting log lines; a failed write is retried by the next move's check.
    func housekeeping() {
        for room in Array(pendingLog.keys) { flushLog(of: room) }
        if writeFailed, redis.isConnected { writeFailed = false }
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
            guard let lease = redis.leaseValue(of: room) else { return }
            redis.run(ClusterScripts.appendLog, keys: [keys.lease(room), keys.log(room)],
                      arguments: [Array(lease.utf8), Array(String(logLength).utf8)] + batch) { [weak self] result in
                self?.settle(result, room: room, what: "log")
            }
        }
    }

    private func write(_ script: String, room: String, keys extra: [String], _ arguments: [String]) {
        guard let lease = redis.leaseValue(of: room) else { return }
        redis.run(script, keys: [keys.lease(room)] + extra, [lease] + arguments) { [weak self] result in
            self?.settle(result, room: room, what: "write")
        }
    }

    private func settle(_ result: Result<RedisValue, RedisError>, room: String, what: String) {
        switch result {
        case .success(.integer(-1)): redis.fenced(room: room)
        case .success(.error(let message)): failed("\(what) of room '\(room)': Redis refused it: \(message)")
        case .success: break
        case .failure(let error): failed("\(what) of room '\(room)': \(error)")
        }
    }

    private func failed(_ message: String) {
        if !writeFailed { onWriteFailure(message) }
        writeFailed = true
    }

    /// A stored room from the fields of its hash; nil when there is none.
    static func storedRoom(name: String, fields value: RedisValue) -> (StoredRoom, UInt64)? {
        guard let items = value.array, !items.isEmpty else { return nil }
        var fields: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let key = items[index].text, let text = items[index + 1].text { fields[key] = text }
            index += 2
        }
        guard let scene = fields["scene"] else { return nil }
        let key = fields["key"].flatMap { $0.isEmpty ? nil : $0 }
        let settings = RoomSettings(name: name, sceneName: scene, driverKeyDigest: key)
        let stored = StoredRoom(settings: settings, rowOrder: fields["order"].flatMap(RowOrderText.decode) ?? [],
                                rowMoveVersion: fields["version"].flatMap { Int($0) } ?? 0,
                                restingOffset: fields["rest"].flatMap { Double($0) })
        return (stored, fields["seq"].flatMap { UInt64($0) } ?? 0)
    }
}
