import Foundation
import Redis
import RedisTesting
import TestSupport

/// A started queue whose first connect has been reported, with its state reports.
func connectedQueue(
    _ server: RedisTestServer, database: Int = 0, name: String = "test-queue", timeoutMilliseconds: Int = 1000
) throws -> (RedisCommandQueue, EventCollector<RedisLinkState>) {
    let states = EventCollector<RedisLinkState>()
    let queue = RedisCommandQueue(
        address: server.address(database: database), name: name,
        commandTimeoutMilliseconds: timeoutMilliseconds, onStateChange: { states.append($0) })
    queue.start()
    guard states.waitForConnected() else {
        queue.close()
        throw TestFailure("\(name) did not connect: \(states.all)")
    }
    return (queue, states)
}

/// A started subscriber whose first connect has been reported, with its messages and states.
func connectedSubscriber(
    _ server: RedisTestServer, channels: [String], name: String = "test-subscriber"
) throws -> (RedisSubscriber, EventCollector<Message>, EventCollector<RedisLinkState>) {
    let messages = EventCollector<Message>()
    let states = EventCollector<RedisLinkState>()
    let subscriber = RedisSubscriber(
        address: server.address(), name: name,
        onMessage: { messages.append(Message(channel: $0, payload: $1)) },
        onStateChange: { states.append($0) })
    for channel in channels { subscriber.subscribe(channel) }
    subscriber.start()
    guard states.waitForConnected() else {
        subscriber.close()
        throw TestFailure("\(name) did not connect: \(states.all)")
    }
    return (subscriber, messages, states)
}

/// One pub/sub message as the subscriber handed it over.
struct Message: Sendable, Equatable {
    let channel: String
    let payload: [UInt8]

    init(channel: String, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    init(_ channel: String, _ text: String) {
        self.init(channel: channel, payload: Array(text.utf8))
    }
}

extension RedisCommandQueue {
    /// Sends and waits for the completion, with a generous deadline; nil if it never came (a hang
    /// is a failure in itself, so callers check for nil rather than waiting forever).
    func call(bytes arguments: [[UInt8]], timeout: TimeInterval = 10) -> Result<RedisValue, RedisError>? {
        let results = EventCollector<Result<RedisValue, RedisError>>()
        send(arguments) { results.append($0) }
        guard results.wait(timeout: timeout, until: { !$0.isEmpty }) else { return nil }
        return results.all.first
    }

    /// ``call(bytes:timeout:)`` with text words.
    func call(_ arguments: [String], timeout: TimeInterval = 10) -> Result<RedisValue, RedisError>? {
        call(bytes: arguments.map { Array($0.utf8) }, timeout: timeout)
    }

    /// The reply, or a thrown failure naming the command if the link failed or nothing came.
    func value(_ arguments: [String]) throws -> RedisValue {
        try value(bytes: arguments.map { Array($0.utf8) })
    }

    /// ``value(_:)`` with byte words.
    func value(bytes arguments: [[UInt8]]) throws -> RedisValue {
        let words = arguments.prefix(3).map { String(decoding: $0.prefix(40), as: UTF8.self) }
        switch call(bytes: arguments) {
        case .success(let reply)?: return reply
        case .failure(let error)?: throw TestFailure("\(words): \(error)")
        case nil: throw TestFailure("\(words): no completion within the deadline")
        }
    }
}
