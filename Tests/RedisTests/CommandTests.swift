import Foundation
import Redis
import TestSupport
import RedisTesting
import Testing

@Suite(.serialized) struct CommandTests {
    @Test func setGetIncrAndNull() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }

        #expect(try queue.value(["SET", "greeting", "hello"]) == .status("OK"))
        let greeting = try queue.value(["GET", "greeting"])
        #expect(greeting == .string(Array("hello".utf8)))
        #expect(greeting.text == "hello")
        #expect(try queue.value(["INCR", "hits"]).integer == 1)
        #expect(try queue.value(["INCR", "hits"]).integer == 2)
        #expect(try queue.value(["INCRBY", "hits", "40"]) == .integer(42))
        let missing = try queue.value(["GET", "no-such-key"])
        #expect(missing == .null)
        #expect(missing.isNull)
    }

    @Test func errorRepliesAreValuesNotFailures() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }

        _ = try queue.value(["SET", "word", "abc"])
        let notANumber = try queue.value(["INCR", "word"])
        #expect(notANumber.errorMessage?.contains("not an integer") == true, "\(notANumber)")
        let unknown = try queue.value(["NOSUCHCOMMAND", "x"])
        #expect(unknown.errorMessage?.hasPrefix("ERR unknown command") == true, "\(unknown)")
        // The link is still fine after error replies.
        #expect(queue.isConnected)
        #expect(try queue.value(["PING"]) == .status("PONG"))
    }

    @Test func arrayReplies() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }

        #expect(try queue.value(["RPUSH", "letters", "a", "b", "c"]) == .integer(3))
        let letters = try queue.value(["LRANGE", "letters", "0", "-1"])
        #expect(letters.array?.compactMap(\.text) == ["a", "b", "c"])
        #expect(try queue.value(["LRANGE", "nothing", "0", "-1"]) == .array([]))
        _ = try queue.value(["SET", "k1", "v1"])
        #expect(try queue.value(["MGET", "k1", "missing"]) == .array([.string(Array("v1".utf8)), .null]))
    }

    @Test func binaryValuesWithNulBytesRoundTrip() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }

        let key: [UInt8] = [0x6B, 0x00, 0x01]
        let payload: [UInt8] = [0, 1, 2, 0, 0, 255, 254, 0x0D, 0x0A, 0] + Array(0...255) + [0]
        #expect(try queue.value(bytes: [Array("SET".utf8), key, payload]) == .status("OK"))
        #expect(try queue.value(bytes: [Array("GET".utf8), key]) == .string(payload))
        #expect(try queue.value(bytes: [Array("STRLEN".utf8), key]) == .integer(Int64(payload.count)))
        // Invalid UTF-8 stays bytes; only `text` declines it.
        #expect(try queue.value(bytes: [Array("GET".utf8), key]).text == nil)
        // An empty argument is an empty string, not a missing one.
        #expect(try queue.value(bytes: [Array("SET".utf8), Array("empty".utf8), []]) == .status("OK"))
        #expect(try queue.value(["GET", "empty"]) == .string([]))
    }

    @Test func setNXWithExpiryIsALease() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }

        #expect(try queue.value(["SET", "room:a:owner", "n1", "NX", "PX", "3000"]) == .status("OK"))
        #expect(try queue.value(["SET", "room:a:owner", "n2", "NX", "PX", "3000"]) == .null)
        #expect(try queue.value(["GET", "room:a:owner"]).text == "n1")
        let ttl = try #require(try queue.value(["PTTL", "room:a:owner"]).integer)
        #expect((1...3000).contains(ttl), "PTTL \(ttl)")
    }

    @Test func evalRunsLua() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }

        let incrementBy = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
        #expect(try queue.value(["EVAL", incrementBy, "1", "counter", "5"]) == .integer(5))
        #expect(try queue.value(["EVAL", incrementBy, "1", "counter", "2"]) == .integer(7))
        let nested = try queue.value(["EVAL", "return {1, {'x', ARGV[1]}}", "0", "y"])
        #expect(nested == .array([.integer(1), .array([.string(Array("x".utf8)), .string(Array("y".utf8))])]))
        let failing = try queue.value(["EVAL", "return redis.error_reply('LEASE lost')", "0"])
        #expect(failing == .error("LEASE lost"))
    }

    @Test func selectsTheDatabaseOfTheAddress() throws {
        let server = try RedisTestServer()
        let (zero, _) = try connectedQueue(server, database: 0, name: "db0")
        defer { zero.close() }
        let (two, _) = try connectedQueue(server, database: 2, name: "db2")
        defer { two.close() }

        _ = try two.value(["SET", "where", "two"])
        #expect(try two.value(["GET", "where"]).text == "two")
        #expect(try zero.value(["GET", "where"]) == .null)
        let clientName = try two.value(["CLIENT", "GETNAME"])
        #expect(clientName.text == "db2")
    }

    @Test func aDatabaseRedisRefusesIsReportedNotHidden() throws {
        let server = try RedisTestServer()
        let states = EventCollector<RedisLinkState>()
        let queue = RedisCommandQueue(
            address: server.address(database: 99), name: "bad-db", onStateChange: { states.append($0) })
        queue.start()
        defer { queue.close() }

        #expect(states.waitForDisconnected())
        guard case .disconnected(let reason)? = states.all.first else {
            Issue.record("no state: \(states.all)")
            return
        }
        // The link, the command and the kind of reply: "… bad-db (…/99): database 99 refused
        // [errorReply] while running SELECT; reply: error reply: ERR DB index is out of range".
        #expect(reason.contains("bad-db"), "\(reason)")
        #expect(reason.contains("while running SELECT"), "\(reason)")
        #expect(reason.contains("database 99 refused"), "\(reason)")
        #expect(reason.contains("reply: error reply: ERR"), "\(reason)")
        #expect(!queue.isConnected)
        guard case .failure(let error)? = queue.call(["PING"]) else {
            Issue.record("PING on a queue that never connected did not fail")
            return
        }
        #expect(error.code == .notConnected, "\(error)")
        #expect(error.message.contains("not connected"), "\(error)")
        #expect(error.command == "PING", "\(error)")
    }

    @Test func emptyCommandsAndUnstartedOrClosedQueuesFail() throws {
        let server = try RedisTestServer()
        let idle = RedisCommandQueue(address: server.address(), name: "unstarted")
        guard case .failure(let unstarted)? = idle.call(["PING"]) else {
            Issue.record("a command before start() did not fail")
            return
        }
        #expect(unstarted.code == .notStarted, "\(unstarted)")
        #expect(unstarted.description.contains("unstarted"), "\(unstarted)")

        let (queue, states) = try connectedQueue(server)
        guard case .failure(let empty)? = queue.call(bytes: []) else {
            Issue.record("an empty command did not fail")
            return
        }
        #expect(empty.code == .invalidCommand, "\(empty)")
        #expect(empty.message.contains("empty command"), "\(empty)")

        queue.close()
        queue.close()
        #expect(states.all.last == .disconnected(reason: "closed"))
        #expect(!queue.isConnected)
        guard case .failure(let closed)? = queue.call(["PING"]) else {
            Issue.record("a command after close() did not fail")
            return
        }
        #expect(closed.code == .closed, "\(closed)")
        #expect(closed.command == "PING", "\(closed)")
    }

    @Test func closeCompletesEveryCommandExactlyOnce() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        let results = EventCollector<Bool>()
        let count = 5000
        for index in 0..<count {
            queue.send(["SET", "k\(index)", "v"]) { results.append((try? $0.get()) != nil) }
        }
        queue.close()
        // close() waits for the thread, so every completion has run by now.
        #expect(results.all.count == count)
    }

    @Test func closeFromACompletionDoesNotDeadlock() throws {
        let server = try RedisTestServer()
        let (queue, states) = try connectedQueue(server)
        let done = EventCollector<Bool>()
        queue.send(["PING"]) { _ in
            queue.close()
            done.append(true)
        }
        #expect(done.wait { !$0.isEmpty })
        #expect(states.waitForDisconnected())
    }
}
