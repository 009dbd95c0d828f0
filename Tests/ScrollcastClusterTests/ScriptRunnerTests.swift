import ScrollcastRooms
import Foundation
import Redis
import RedisTesting
import ScrollcastServerTesting
import Testing
@testable import ScrollcastCluster

/// `RedisScriptRunner` against a real redis-server: scripts by `EVALSHA` once Redis has them,
/// `EVAL` as the fallback on `NOSCRIPT` (after `SCRIPT FLUSH`), replies and effects in order.
@Suite("Scripts by EVALSHA")
@RoomActor struct ScriptRunnerTests {
    /// Appends ARGV[1] to the list KEYS[1] and returns its length.
    static let push = "return redis.call('RPUSH', KEYS[1], ARGV[1])"

    /// A runner on its own command connection, its replies handed to a manual scheduler as the
    /// node's are to the room thread.
    @RoomActor final class Runner {
        let redis: ScriptRedis
        let scheduler = ManualScheduler(clock: ManualRoomClock())
        private(set) var runner: RedisScriptRunner!
        private(set) var replies: [RedisValue] = []

        init() throws {
            redis = try ScriptRedis()
            let (queue, hop) = (redis.queue, SchedulerHop(scheduler: scheduler))
            runner = RedisScriptRunner { command, reply in
                let box = RoomBound(reply)
                queue.send(command) { result in hop.hop { box.value(result) } }
            }
        }

        /// Pushes `values` onto `key`, one script call each, without waiting in between.
        func push(_ values: ClosedRange<Int>, onto key: String) {
            for value in values {
                runner.run(ScriptRunnerTests.push, keys: [key], arguments: [Array(String(value).utf8)]) { [self] result in
                    replies.append((try? result.get()) ?? .error("link failed"))
                }
            }
        }

        /// Runs what came back until `count` replies are in (10 s at most).
        func wait(for count: Int) -> Bool {
            let deadline = Date(timeIntervalSinceNow: 10)
            while replies.count < count, Date() < deadline {
                scheduler.runDue()
                usleep(1_000)
            }
            return replies.count >= count
        }

        /// How often Redis ran a command (`INFO commandstats`).
        func calls(_ command: String) throws -> Int {
            guard let info = try redis.command(["INFO", "commandstats"]).text,
                  let line = info.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_\(command):") }),
                  let calls = line.split(separator: ",").first?.split(separator: "=").last else { return 0 }
            return Int(calls) ?? 0
        }
    }

    @Test("the first call goes by EVAL and loads the script; later calls go by EVALSHA")
    func digests() throws {
        let runner = try Runner()
        runner.push(1...1, onto: "list")
        try #require(runner.wait(for: 1))
        runner.push(2...5, onto: "list")
        try #require(runner.wait(for: 5))
        #expect(runner.replies == (1...5).map { .integer(Int64($0)) })
        #expect(try runner.redis.list("list") == (1...5).map(String.init))
        #expect(try runner.calls("eval") == 1)
        #expect(try runner.calls("evalsha") == 4)
        #expect(runner.runner.fallbacks == 0)
    }

    @Test("after SCRIPT FLUSH between calls in flight, NOSCRIPT calls go again by EVAL: every call runs once, in order")
    func flush() throws {
        let runner = try Runner()
        runner.push(1...1, onto: "list")
        try #require(runner.wait(for: 1))
        // Calls 2–10 go out by digest; the flush goes on the same connection behind them, and
        // calls 11–30 behind it, all before any reply is handled.
        runner.push(2...10, onto: "list")
        runner.redis.queue.send(["SCRIPT", "FLUSH"]) { _ in }
        runner.push(11...30, onto: "list")
        try #require(runner.wait(for: 30))
        #expect(runner.replies == (1...30).map { .integer(Int64($0)) })
        #expect(try runner.redis.list("list") == (1...30).map(String.init))
        #expect(runner.runner.fallbacks == 20)
        // Loaded again: the next calls go by digest.
        let before = try runner.calls("evalsha")
        runner.push(31...32, onto: "list")
        try #require(runner.wait(for: 32))
        #expect(try runner.calls("evalsha") == before + 2)
        #expect(try runner.redis.list("list").count == 32)
    }
}
