import Foundation
import Redis
import TestSupport
import RedisTesting
import Testing

/// Redis going away, hanging and coming back, with a real server killed, stopped and restarted.
@Suite(.serialized) struct OutageTests {
    @Test func killedRedisFailsCommandsFastAndRestartReconnectsEverything() throws {
        let server = try RedisTestServer()
        let (queue, queueStates) = try connectedQueue(server)
        defer { queue.close() }
        let (subscriber, messages, subscriberStates) = try connectedSubscriber(server, channels: ["a", "b"])
        defer { subscriber.close() }

        server.kill()
        // Both notice while idle: the socket turns readable (EOF) when the server dies.
        #expect(queueStates.waitForDisconnected())
        #expect(subscriberStates.waitForDisconnected())
        #expect(!queue.isConnected)
        #expect(!subscriber.isConnected)

        let started = ContinuousClock.now
        let result = queue.call(["SET", "k", "v"], timeout: 10)
        let elapsed = started.duration(to: .now)
        guard case .failure(let error)? = result else {
            Issue.record("a command while Redis is down gave \(String(describing: result))")
            return
        }
        #expect(error.code == .notConnected, "\(error)")
        #expect(error.command == "SET", "\(error)")
        #expect(elapsed < .seconds(2), "the failure took \(elapsed)")

        try server.restart()
        #expect(queueStates.waitForConnected(2))
        #expect(subscriberStates.waitForConnected(2))
        #expect(queue.isConnected)
        #expect(try queue.value(["SET", "k", "after"]) == .status("OK"))
        // Reported .connected only once subscribed again, so this PUBLISH must arrive.
        #expect(try queue.value(["PUBLISH", "b", "back"]) == .integer(1))
        #expect(messages.wait { $0.contains(Message("b", "back")) })
        #expect(subscriber.subscribedChannels == ["a", "b"])
    }

    @Test func commandsInFlightWhenRedisDiesFailWithTheReason() throws {
        let server = try RedisTestServer()
        let (queue, states) = try connectedQueue(server)
        defer { queue.close() }

        // BLPOP on an empty list holds the reply back (0.8 s, within the 1 s command timeout)
        // while the server is killed under it.
        let results = EventCollector<Result<RedisValue, RedisError>>()
        queue.send(["BLPOP", "nothing", "0.8"]) { results.append($0) }
        queue.send(["PING"]) { results.append($0) }
        // Redis holds the BLPOP (a blocked client) before it dies, so the command is in flight.
        let (probe, _) = try connectedQueue(server, name: "probe")
        #expect(waitUntil { ((try? probe.value(["INFO", "clients"]).text) ?? "").contains("blocked_clients:1") })
        probe.close()
        server.kill()
        #expect(results.wait { $0.count >= 2 })
        // Each names the link and its own command (completions run in order: BLPOP, then PING).
        for (result, command) in zip(results.all, ["BLPOP", "PING"]) {
            guard case .failure(let error) = result else {
                Issue.record("a command in flight when Redis died gave \(result)")
                continue
            }
            #expect(error.code == .io, "\(error)")
            #expect(error.link?.contains("test-queue") == true, "\(error)")
            #expect(error.command == command, "\(error)")
            #expect(error.description.contains("while running \(command)"), "\(error)")
        }
        #expect(states.waitForDisconnected())
    }

    /// A server stopped with SIGSTOP keeps its sockets open and answers nothing: the command
    /// timeout turns that into a lost link for the queue, and the PING check for the subscriber.
    @Test func hungRedisCountsAsDisconnected() throws {
        let server = try RedisTestServer()
        let (queue, queueStates) = try connectedQueue(server, timeoutMilliseconds: 300)
        defer { queue.close() }
        let (subscriber, messages, subscriberStates) = try connectedSubscriber(server, channels: ["c"])
        defer { subscriber.close() }

        server.pause()
        let started = ContinuousClock.now
        let result = queue.call(["GET", "k"], timeout: 10)
        guard case .failure(let error)? = result else {
            Issue.record("a command to a hung Redis gave \(String(describing: result))")
            server.resume()
            return
        }
        #expect(error.code == .timeout, "\(error)")
        #expect(error.message.contains("timed out after 300 ms"), "\(error)")
        #expect(error.command == "GET", "\(error)")
        #expect(started.duration(to: .now) < .seconds(3))
        #expect(queueStates.waitForDisconnected())
        #expect(subscriberStates.waitForDisconnected())
        if case .disconnected(let reason)? = subscriberStates.all.last {
            #expect(reason.contains("PING"), "\(reason)")
        }

        server.resume()
        #expect(queueStates.waitForConnected(2))
        #expect(subscriberStates.waitForConnected(2))
        #expect(try queue.value(["PUBLISH", "c", "awake"]) == .integer(1))
        #expect(messages.wait { $0.contains(Message("c", "awake")) })
    }

    /// Redis closes the link while the queue's thread is busy in a completion, so the thread
    /// writes the next command into a socket whose peer is gone: the first write() draws a reset
    /// and the next one EPIPE, which also raises SIGPIPE. That must end as an error for this
    /// command, not as a signal that ends the process.
    @Test func writingToAClosedSocketIsAnErrorNotASignal() throws {
        let server = try RedisTestServer()
        let (queue, states) = try connectedQueue(server, name: "victim")
        defer { queue.close() }
        let (killer, _) = try connectedQueue(server, name: "killer")
        defer { killer.close() }
        let id = try #require(try queue.value(["CLIENT", "ID"]).integer)

        let results = EventCollector<Result<RedisValue, RedisError>>()
        let big = [UInt8](repeating: 0x78, count: 64 << 20)
        queue.send(["PING"]) { _ in
            // On the victim's own thread, so it cannot see the close before its next write.
            _ = killer.call(["CLIENT", "KILL", "ID", String(id)])
            queue.send([Array("SET".utf8), Array("big".utf8), big]) { results.append($0) }
        }
        #expect(results.wait(timeout: 30) { !$0.isEmpty })
        guard case .failure(let error)? = results.all.first else {
            Issue.record("a write to a closed link gave \(String(describing: results.all.first))")
            return
        }
        #expect(error.link?.contains("victim") == true, "\(error)")
        // The command by name, never its 64 MB argument.
        #expect(error.command == "SET", "\(error)")
        #expect(error.description.count < 300, "\(error.description.prefix(300))")
        #expect(states.waitForDisconnected())
        // Still alive, and back by itself.
        #expect(states.waitForConnected(2))
        #expect(try queue.value(["PING"]) == .status("PONG"))
    }
}
