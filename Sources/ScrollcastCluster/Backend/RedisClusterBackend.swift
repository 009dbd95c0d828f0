import Logging
import Redis
import ScrollcastRooms

/// The cluster's backend on one Redis (docs/cluster.md): leases and fenced writes are the Lua
/// scripts of `ClusterScripts` (run by `EVALSHA`), rooms publish on their channels, nodes on
/// theirs. hiredis runs on the `Redis` library's two threads (commands, pub/sub), never on the
/// room thread; every reply and message hops to the room thread through the scheduler.
final class RedisClusterBackend: ClusterBackend {
    let keys: ClusterKeys
    private let logger: Logger
    private let commands: RedisCommandQueue
    private let subscriber: RedisSubscriber
    private let hop: SchedulerHop
    private let reference: EventsReference
    private lazy var scripts = RedisScriptRunner(onLostScripts: { [logger] in
        logger.warning("Redis does not have the cluster's scripts any more (SCRIPT FLUSH?); calls go again by EVAL and the scripts are loaded again")
    }) { [commands, hop] command, reply in
        let box = RoomBound(reply)
        commands.send(command) { result in hop.hop { box.value(result) } }
    }

    /// A backend on Redis at `address`, for node `nodeID`, handing replies to `scheduler`'s thread.
    init(address: RedisAddress, nodeID: String, keys: ClusterKeys, scheduler: RoomScheduler, logger: Logger) {
        self.keys = keys
        self.logger = logger
        let hop = SchedulerHop(scheduler: scheduler)
        let reference = EventsReference()
        self.hop = hop
        self.reference = reference
        commands = RedisCommandQueue(address: address, name: "scrollcast \(nodeID) commands", onStateChange: { state in
            hop.hop { reference.commandLink(state) }
        })
        subscriber = RedisSubscriber(
            address: address, name: "scrollcast \(nodeID) pubsub",
            onMessage: { channel, payload in hop.hop { reference.received(payload, on: channel) } },
            onSubscribed: { channel in hop.hop { reference.subscribed(to: channel) } },
            onStateChange: { state in hop.hop { reference.subscriberLink(state) } })
    }

    func start(nodeID: String, events: any ClusterBackendEvents) {
        reference.events = events
        reference.keys = keys
        reference.nodeChannel = keys.nodeChannel(nodeID)
        reference.onCommandsConnected = { [weak self] in self?.scripts.connected() }
        commands.start()
        subscriber.start()
        subscriber.subscribe(keys.nodeChannel(nodeID))
    }

    func close() {
        commands.close()
        subscriber.close()
    }

    var isConnected: Bool { commands.isConnected }

    /// Runs `script` with text arguments.
    private func run(_ script: String, keys: [String], _ arguments: [String],
                     reply: @escaping (Result<RedisValue, RedisError>) -> Void) {
        scripts.run(script, keys: keys, arguments: arguments.map { Array($0.utf8) }, reply: reply)
    }

    func claim(room: String, node: String, leaseMilliseconds: Double,
               reply: @escaping (Result<ClaimOutcome, ClusterBackendError>) -> Void) {
        let ms = String(Int(leaseMilliseconds))
        run(ClusterScripts.claim, keys: [keys.lease(room), keys.epoch(room)], [node, ms, keys.nodeChannelPrefix, ms]) { result in
            reply(Self.parse(result, script: "claim") { value in
                guard let parts = value.array, parts.count == 3, let status = parts[0].text, let holder = parts[1].text,
                      let epoch = parts[2].text.flatMap({ UInt64($0) }) else { return nil }
                return status == "granted" ? .granted(RoomLease(room: room, node: node, epoch: epoch))
                                           : .held(LeaseHolder(node: holder, epoch: epoch))
            })
        }
    }

    func renew(_ lease: RoomLease, leaseMilliseconds: Double,
               reply: @escaping (Result<RenewOutcome, ClusterBackendError>) -> Void) {
        run(ClusterScripts.renew, keys: [keys.lease(lease.room), keys.epoch(lease.room)],
            [lease.value, String(Int(leaseMilliseconds)), String(lease.epoch)]) { result in
            reply(Self.parse(result, script: "renew") { value in
                if case .integer(1) = value { return .renewed }
                return .lost(holder: value.text.flatMap(ClusterKeys.parseLease).map { LeaseHolder(node: $0.node, epoch: $0.epoch) })
            })
        }
    }

    func release(_ lease: RoomLease) {
        run(ClusterScripts.release, keys: [keys.lease(lease.room)], [lease.value]) { _ in }
    }

    func publish(_ payload: [UInt8], frameSequence: UInt64?, under lease: RoomLease,
                 reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void) {
        scripts.run(ClusterScripts.publish, keys: [keys.lease(lease.room), keys.state(lease.room)],
                    arguments: [Array(lease.value.utf8), Array(keys.roomChannel(lease.room).utf8), payload,
                                frameSequence.map { Array(String($0).utf8) } ?? []]) { result in
            reply(Self.fenced(result, script: "publish"))
        }
    }

    func send(_ payload: [UInt8], toNode node: String) {
        commands.send([Array("PUBLISH".utf8), Array(keys.nodeChannel(node).utf8), payload]) { _ in }
    }

    func subscribe(room: String) -> Bool {
        let channel = keys.roomChannel(room)
        subscriber.subscribe(channel)
        return subscriber.subscribedChannels.contains(channel)
    }

    func unsubscribe(room: String) {
        subscriber.unsubscribe(keys.roomChannel(room))
    }

    func load(room: String, reply: @escaping (Result<[String: String], ClusterBackendError>) -> Void) {
        scripts.run("return redis.call('HGETALL', KEYS[1])", keys: [keys.state(room)], arguments: []) { result in
            reply(Self.parse(result, script: "load") { value in
                guard let items = value.array else { return nil }
                var fields: [String: String] = [:]
                for pair in stride(from: 0, to: items.count - 1, by: 2) {
                    if let key = items[pair].text, let text = items[pair + 1].text { fields[key] = text }
                }
                return fields
            })
        }
    }

    func write(_ write: StoreWrite, under lease: RoomLease,
               reply: @escaping (Result<WriteOutcome, ClusterBackendError>) -> Void) {
        let room = lease.room
        let value = Array(lease.value.utf8)
        let (script, keys, arguments): (String, [String], [[UInt8]])
        switch write {
        case let .created(_, scene, keyDigest):
            (script, keys, arguments) = (ClusterScripts.created, [self.keys.state(room), self.keys.log(room)],
                                         [Array(scene.utf8), Array(keyDigest.utf8)])
        case let .commitMove(_, rowMoveVersion, order):
            (script, keys, arguments) = (ClusterScripts.commitMove, [self.keys.state(room)],
                                         [Array(String(rowMoveVersion).utf8), Array(order.utf8)])
        case let .checkpoint(_, offset):
            (script, keys, arguments) = (ClusterScripts.checkpoint, [self.keys.state(room)], [Array(String(offset).utf8)])
        case let .appendLog(_, lines, keep):
            (script, keys, arguments) = (ClusterScripts.appendLog, [self.keys.log(room)], [Array(String(keep).utf8)] + lines)
        }
        let isMove = if case .commitMove = write { true } else { false }
        let name = write.scriptName
        scripts.run(script, keys: [self.keys.lease(room)] + keys, arguments: [value] + arguments) { result in
            reply(Self.fenced(result, script: name, zeroIsOutOfOrder: isMove))
        }
    }

    // MARK: Replies

    /// The reply to `script` (the script's name, for the error's context) read by `read`; a
    /// failure keeps the Redis error's context (link, command, kind of reply) in its message.
    private static func parse<T>(_ result: Result<RedisValue, RedisError>, script: String,
                                 _ read: (RedisValue) -> T?) -> Result<T, ClusterBackendError> {
        let failure: RedisError
        switch result {
        case .failure(let error):
            failure = error
        case .success(let value):
            if case .error = value {
                failure = RedisError(.errorReply, "Redis refused it", command: "EVALSHA", reply: value.kindDescription)
            } else if let parsed = read(value) {
                return .success(parsed)
            } else {
                failure = RedisError(.unexpectedReply, "a reply the node cannot read", command: "EVALSHA", reply: value.kindDescription)
            }
        }
        return .failure(ClusterBackendError("\(failure.description) (the \(script) script)"))
    }

    /// A fenced script's reply: −1 fenced; for a move 0 is out of order; anything else done.
    private static func fenced(_ result: Result<RedisValue, RedisError>, script: String,
                               zeroIsOutOfOrder: Bool = false) -> Result<WriteOutcome, ClusterBackendError> {
        parse(result, script: script) { value in
            switch value {
            case .integer(-1): .fenced
            case .integer(0) where zeroIsOutOfOrder: .outOfOrder
            default: .done
            }
        }
    }
}

/// Hands work from a Redis thread to the room thread.
struct SchedulerHop: Sendable {
    let scheduler: RoomScheduler

    func hop(_ work: @escaping @Sendable @RoomActor () -> Void) {
        scheduler.execute { RoomActor.assumeIsolated(work) }
    }
}

extension StoreWrite {
    /// The name of the script that makes this write (`ClusterScripts`), for error messages.
    var scriptName: String {
        switch self {
        case .created: "created"
        case .commitMove: "commitMove"
        case .checkpoint: "checkpoint"
        case .appendLog: "appendLog"
        }
    }
}
