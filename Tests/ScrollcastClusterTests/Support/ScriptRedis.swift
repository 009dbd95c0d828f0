import ScrollcastRooms
import Foundation
import Redis
import RedisTesting
@testable import ScrollcastCluster

/// Collects values handed over on a Redis link's thread and lets a test wait for them (condition
/// variable with a deadline), so no test guesses how long a reply or a message takes.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [Value] = []

    func append(_ value: Value) {
        condition.lock()
        values.append(value)
        condition.broadcast()
        condition.unlock()
    }

    var all: [Value] {
        condition.lock()
        defer { condition.unlock() }
        return values
    }

    /// Waits until `predicate` holds for the values so far; false if the deadline passes first.
    @discardableResult
    func wait(timeout: TimeInterval = 10, until predicate: ([Value]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(values) {
            if !condition.wait(until: deadline) { return predicate(values) }
        }
        return true
    }
}

/// What a claim script answered, parsed as strictly as the node needs it (three bulk strings).
enum ClaimReply: Equatable, CustomStringConvertible {
    case granted(node: String, epoch: UInt64)
    case held(node: String, epoch: UInt64)

    var description: String {
        switch self {
        case let .granted(node, epoch): "granted(\(node)|\(epoch))"
        case let .held(node, epoch): "held(\(node)|\(epoch))"
        }
    }
}

/// A test's own redis-server and one command connection to it, running the cluster's scripts
/// exactly as a node does: `EVAL script numkeys keys… args…` on a `RedisCommandQueue`.
@RoomActor final class ScriptRedis {
    let server: RedisTestServer
    let queue: RedisCommandQueue
    let keys = ClusterKeys(prefix: "scrollcast-test:")

    init() throws {
        server = try RedisTestServer()
        let states = Collected<RedisLinkState>()
        queue = RedisCommandQueue(address: server.address(), name: "script-tests",
                                  commandTimeoutMilliseconds: 5000, onStateChange: { states.append($0) })
        queue.start()
        // Commands sent before the first connect fail at once, so wait for it.
        guard states.wait(until: { $0.contains(.connected) }) else {
            queue.close()
            throw TestFailure("the command queue did not connect: \(states.all)")
        }
    }

    deinit {
        // Before the server goes (its deinit kills it), so the queue does not log a lost link.
        queue.close()
    }

    // MARK: Commands

    /// Sends every command at once (pipelined on the one connection, so Redis runs them back to
    /// back with nothing of ours in between) and returns the replies in order.
    func pipeline(_ commands: [[[UInt8]]]) throws -> [RedisValue] {
        let replies = Collected<(Int, Result<RedisValue, RedisError>)>()
        for (index, command) in commands.enumerated() {
            queue.send(command) { replies.append((index, $0)) }
        }
        guard replies.wait(until: { $0.count == commands.count }) else {
            throw TestFailure("no reply within the deadline for \(commands.map { Self.name(of: $0) })")
        }
        return try replies.all.sorted { $0.0 < $1.0 }.map { index, result in
            switch result {
            case .success(.error(let message)):
                // No command here should be refused: a refused script is a broken script.
                throw TestFailure("\(Self.name(of: commands[index])): error reply \(message)")
            case .success(let value): return value
            case .failure(let error): throw TestFailure("\(Self.name(of: commands[index])): \(error)")
            }
        }
    }

    /// A command's first words, short enough for a failure message (a script's text is long).
    private static func name(of command: [[UInt8]]) -> String {
        command.prefix(2).map { String(decoding: $0.prefix(40), as: UTF8.self) }.joined(separator: " ")
    }

    /// One command given as text words.
    func command(_ words: [String]) throws -> RedisValue {
        try pipeline([words.map { Array($0.utf8) }])[0]
    }

    /// The EVAL command a node sends for `script` (see `ClusterNode.run`).
    func evalCommand(_ script: String, keys: [String], _ arguments: [[UInt8]]) -> [[UInt8]] {
        [Array("EVAL".utf8), Array(script.utf8), Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
    }

    func eval(_ script: String, keys: [String], _ arguments: [[UInt8]]) throws -> RedisValue {
        try pipeline([evalCommand(script, keys: keys, arguments)])[0]
    }

    func eval(_ script: String, keys: [String], _ arguments: [String]) throws -> RedisValue {
        try eval(script, keys: keys, arguments.map { Array($0.utf8) })
    }

    // MARK: The scripts, with the keys and arguments the node passes

    /// `ClusterScripts.claim` for `node` on `room`, with the node's own argument order.
    /// `settleMilliseconds`: how long Redis must have been up before a holder without a
    /// subscriber counts as dead (0: at once; this test server has just started).
    func claim(_ room: String, by node: String, leaseMilliseconds: Int, settleMilliseconds: Int = 0) throws -> ClaimReply {
        let reply = try eval(ClusterScripts.claim, keys: [keys.lease(room), keys.epoch(room)],
                             [node, String(leaseMilliseconds), keys.nodeChannelPrefix, String(settleMilliseconds)])
        guard let parts = reply.array, parts.count == 3,
              case .string(let status) = parts[0], case .string(let holder) = parts[1], case .string(let epoch) = parts[2],
              let holderText = String(validating: holder, as: UTF8.self),
              let epochNumber = UInt64(String(decoding: epoch, as: UTF8.self)) else {
            throw TestFailure("unexpected claim reply \(reply)")
        }
        switch String(decoding: status, as: UTF8.self) {
        case "granted": return .granted(node: holderText, epoch: epochNumber)
        case "held": return .held(node: holderText, epoch: epochNumber)
        default: throw TestFailure("unexpected claim status in \(reply)")
        }
    }

    func renew(_ room: String, value: String, epoch: UInt64, leaseMilliseconds: Int) throws -> RedisValue {
        try eval(ClusterScripts.renew, keys: [keys.lease(room), keys.epoch(room)],
                 [value, String(leaseMilliseconds), String(epoch)])
    }

    func release(_ room: String, value: String) throws -> RedisValue {
        try eval(ClusterScripts.release, keys: [keys.lease(room)], [value])
    }

    /// `ClusterScripts.publish` as `ClusterNode.publish` sends it: `seq` empty for what is not a frame.
    func publish(_ room: String, value: String, payload: [UInt8], seq: String) throws -> RedisValue {
        try eval(ClusterScripts.publish, keys: [keys.lease(room), keys.state(room)],
                 [Array(value.utf8), Array(keys.roomChannel(room).utf8), payload, Array(seq.utf8)])
    }

    func created(_ room: String, value: String, scene: String, keyDigest: String) throws -> RedisValue {
        try eval(ClusterScripts.created, keys: [keys.lease(room), keys.state(room), keys.log(room)], [value, scene, keyDigest])
    }

    func commitMove(_ room: String, value: String, rowMoveVersion: Int, order: String) throws -> RedisValue {
        try eval(ClusterScripts.commitMove, keys: [keys.lease(room), keys.state(room)], [value, String(rowMoveVersion), order])
    }

    func checkpoint(_ room: String, value: String, offset: String) throws -> RedisValue {
        try eval(ClusterScripts.checkpoint, keys: [keys.lease(room), keys.state(room)], [value, offset])
    }

    func appendLog(_ room: String, value: String, mostLines: Int, lines: [String]) throws -> RedisValue {
        try eval(ClusterScripts.appendLog, keys: [keys.lease(room), keys.log(room)],
                 [value, String(mostLines)] + lines)
    }

    // MARK: Reading Redis back

    /// The text of a string key, nil when it does not exist.
    func text(_ key: String) throws -> String? {
        try command(["GET", key]).text
    }

    func pttl(_ key: String) throws -> Int64 {
        guard let value = try command(["PTTL", key]).integer else { throw TestFailure("PTTL \(key) is no integer") }
        return value
    }

    /// A hash's fields; empty when there is no hash.
    func hash(_ key: String) throws -> [String: String] {
        let items = try command(["HGETALL", key]).array ?? []
        var fields: [String: String] = [:]
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            if let field = items[index].text, let value = items[index + 1].text { fields[field] = value }
        }
        return fields
    }

    func list(_ key: String) throws -> [String] {
        try command(["LRANGE", key, "0", "-1"]).array?.compactMap(\.text) ?? []
    }

    /// How many clients Redis counts as subscribed to `channel` (what the claim script asks).
    func subscriberCount(_ channel: String) throws -> Int64 {
        try command(["PUBSUB", "NUMSUB", channel]).array?.last?.integer ?? -1
    }

    /// Asks `attempt` again until it gives a value or `timeout` passes. Used where the awaited
    /// thing happens inside Redis (a key's expiry, a closed connection noticed), which sends no
    /// event to wait on; the short pause between asks keeps the shared machine's cores free.
    func poll<T>(timeout: TimeInterval = 10, _ attempt: () throws -> T?) throws -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let value = try attempt() { return value }
            if Date() >= deadline { return nil }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}

/// A subscriber standing for a node's (or a viewer node's) pub/sub connection; ready once Redis
/// has confirmed the subscription, as PUBSUB NUMSUB counts only confirmed ones.
final class Listener {
    let subscriber: RedisSubscriber
    let messages: Collected<[UInt8]>

    init(_ redis: ScriptRedis, channel: String) throws {
        let messages = Collected<[UInt8]>()
        let confirmed = Collected<String>()
        subscriber = RedisSubscriber(address: redis.server.address(), name: "listener",
                                     onMessage: { _, payload in messages.append(payload) },
                                     onSubscribed: { confirmed.append($0) })
        self.messages = messages
        subscriber.subscribe(channel)
        subscriber.start()
        guard confirmed.wait(until: { $0.contains(channel) }) else {
            subscriber.close()
            throw TestFailure("the subscription to \(channel) was not confirmed")
        }
    }

    deinit { subscriber.close() }

    /// Closes the connection, as a killed node's process would.
    func close() { subscriber.close() }
}
