import Dispatch
import Redis
import ScrollcastRooms
import Synchronization

/// The uploaded scenes of a cluster, in its Redis (docs/cluster.md, "Uploaded scenes"): each
/// upload in a hash `PREFIXscene:NAME` (`file`, the scene file's name; `scene`, its bytes; and
/// `image:FILE` per image), every name in the set `PREFIXscenes`, the bytes of them all in
/// `PREFIXscenes:bytes`. A save is one script, so the check against the cluster's limit, the
/// write and the announcement on `PREFIXscenes:new` (which tells every node to read it) cannot be
/// split.
///
/// Calls block the calling thread until Redis answers (the route's worker, `ClusterSceneSync`'s
/// worker; never the room thread), on a command connection of its own: an upload of 16 MiB
/// would otherwise hold up the frames the node publishes on its pipelined connection.
public final class RedisSceneUploadStore: SceneUploadStore {
    /// The longest a save may take to write: an upload is up to `SceneUploadLimits.maxSceneBytes`.
    static let commandTimeoutMilliseconds = 10_000

    let keys: SceneUploadKeys
    private let queue: RedisCommandQueue
    private let maxBytes: Int

    /// A store on Redis at `address` for the node `configuration` names (its keys under the
    /// cluster's prefix), keeping at most `maxBytes` of uploads for the whole cluster. Nothing
    /// connects until `start()`.
    public init(address: RedisAddress, configuration: ClusterConfiguration, maxBytes: Int = SceneUploadLimits.maxServerBytes,
                onStateChange: @escaping @Sendable (RedisLinkState) -> Void = { _ in }) {
        keys = SceneUploadKeys(prefix: configuration.keyPrefix)
        self.maxBytes = maxBytes
        queue = RedisCommandQueue(address: address, name: "scrollcast \(configuration.nodeID) uploads",
                                  commandTimeoutMilliseconds: Self.commandTimeoutMilliseconds, onStateChange: onStateChange)
    }

    /// Connects (in the background, again after every loss).
    public func start() { queue.start() }

    /// Closes the connection. Thread-safe.
    public func close() { queue.close() }

    /// Whether the connection is up now.
    public var isConnected: Bool { queue.isConnected }

    public func saveUpload(_ upload: StoredSceneUpload) throws {
        var arguments = [upload.name, String(upload.byteCount), String(maxBytes), keys.announcements].map { Array($0.utf8) }
        arguments += [Array("file".utf8), Array(upload.fileName.utf8), Array("scene".utf8), upload.scene]
        for (name, bytes) in upload.images.sorted(by: { $0.key < $1.key }) {
            arguments += [Array((SceneUploadKeys.imageField + name).utf8), bytes]
        }
        let reply = try command([Array("EVAL".utf8), Array(Self.saveScript.utf8), Array("3".utf8)]
                                + [keys.upload(upload.name), keys.names, keys.bytes].map { Array($0.utf8) } + arguments)
        guard reply != .integer(-1) else { throw SceneUploadStoreFull(limit: maxBytes) }
        guard reply == .integer(0) || reply == .integer(1) else {
            throw RedisError(.unexpectedReply, "a reply the node cannot read", command: "EVAL", reply: reply.kindDescription)
        }
    }

    public func loadUploads() throws -> [StoredSceneUpload] {
        try names().sorted().compactMap { try loadUpload(named: $0) }
    }

    /// The names of every upload kept.
    public func names() throws -> Set<String> {
        let reply = try command(["SMEMBERS", keys.names].map { Array($0.utf8) })
        guard let items = reply.array else {
            throw RedisError(.unexpectedReply, "a reply the node cannot read", command: "SMEMBERS", reply: reply.kindDescription)
        }
        return Set(items.compactMap(\.text))
    }

    /// The upload called `name`, nil when Redis has none.
    public func loadUpload(named name: String) throws -> StoredSceneUpload? {
        let reply = try command(["HGETALL", keys.upload(name)].map { Array($0.utf8) })
        guard let items = reply.array else {
            throw RedisError(.unexpectedReply, "a reply the node cannot read", command: "HGETALL", reply: reply.kindDescription)
        }
        var fields: [String: [UInt8]] = [:]
        for pair in stride(from: 0, to: items.count - 1, by: 2) {
            if let key = items[pair].text, let value = items[pair + 1].bytes { fields[key] = value }
        }
        guard let scene = fields["scene"] else { return nil }
        var images: [String: [UInt8]] = [:]
        for (key, bytes) in fields where key.hasPrefix(SceneUploadKeys.imageField) {
            images[String(key.dropFirst(SceneUploadKeys.imageField.count))] = bytes
        }
        return StoredSceneUpload(name: name, fileName: fields["file"].map { String(decoding: $0, as: UTF8.self) } ?? "scene.json",
                                 scene: scene, images: images)
    }

    /// One command, waited for; an error reply is thrown.
    private func command(_ arguments: [[UInt8]]) throws -> RedisValue {
        let answer = Mutex<Result<RedisValue, RedisError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.send(arguments) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        // The queue answers every command, within its timeout when Redis does not.
        done.wait()
        let value = try answer.withLock { $0! }.get()
        if let message = value.errorMessage {
            throw RedisError(.errorReply, "Redis refused it: \(message)", command: String(decoding: arguments[0], as: UTF8.self))
        }
        return value
    }

    /// KEYS: the upload's hash, the set of names, the byte count. ARGV: name, bytes, the limit,
    /// the channel, then the hash's fields and values. 1 saved, 0 there already, −1 full.
    static let saveScript = """
        if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
        local bytes = tonumber(ARGV[2])
        if tonumber(redis.call('GET', KEYS[3]) or '0') + bytes > tonumber(ARGV[3]) then return -1 end
        for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
        redis.call('SADD', KEYS[2], ARGV[1])
        redis.call('INCRBY', KEYS[3], bytes)
        redis.call('PUBLISH', ARGV[4], ARGV[1])
        return 1
        """
}

/// The names of the uploads' keys and channel in Redis.
public struct SceneUploadKeys: Sendable {
    let prefix: String
    /// An upload's hash.
    func upload(_ name: String) -> String { "\(prefix)scene:\(name)" }
    /// The set of every upload's name.
    var names: String { "\(prefix)scenes" }
    /// The bytes of every upload together (what the cluster's limit counts).
    var bytes: String { "\(prefix)scenes:bytes" }
    /// Where a save announces the new upload's name.
    var announcements: String { "\(prefix)scenes:new" }
    /// The start of an image's field in an upload's hash.
    static let imageField = "image:"
}
