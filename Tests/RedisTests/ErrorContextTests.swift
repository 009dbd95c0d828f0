import Redis
import Testing

/// `RedisError`'s context (as a database error carries its statement): the link, the command by
/// name only, and the kind of reply that was wrong; and what its description makes of them.
@Suite struct ErrorContextTests {
    @Test(arguments: [
        (["EVALSHA", "0123456789abcdef0123456789abcdef01234567", "2", "k1", "k2", "secret"], "EVALSHA"),
        (["client", "setname", "scrollcast-n0"], "CLIENT SETNAME"),
        (["SCRIPT", "LOAD", "return redis.call('GET', KEYS[1])"], "SCRIPT LOAD"),
        (["PUBSUB", "NUMSUB", "ch"], "PUBSUB NUMSUB"),
        (["set", "driver-key", "hunter2"], "SET"),
        (["CLIENT"], "CLIENT"),
        (["CLIENT", "x y"], "CLIENT"),
        (["EVAL ME", "x"], "?"),
        ([], "?"),
    ])
    func commandNamesKeepOnlyTheCommandsWords(arguments: [String], expected: String) {
        #expect(RedisError.commandName(of: arguments.map { Array($0.utf8) }) == expected)
    }

    @Test func aBinaryFirstWordIsNoName() {
        #expect(RedisError.commandName(of: [[0xFF, 0x00, 0x41]]) == "?")
        #expect(RedisError.commandName(of: [Array(repeating: 0x41, count: 33)]) == "?")
    }

    @Test func theDescriptionGivesEveryPartKnownAndNoArgument() {
        let arguments: [[UInt8]] = [Array("SET".utf8), Array("room:key".utf8), Array("hunter2".utf8)]
        let error = RedisError(.timeout, "timed out after 1000 ms", link: "Redis command queue n0 (redis://127.0.0.1:6379/0)")
            .running(arguments)
        #expect(error.command == "SET")
        #expect(error.description
            == "Redis command queue n0 (redis://127.0.0.1:6379/0): timed out after 1000 ms [timeout] while running SET")
        #expect(!error.description.contains("hunter2"))
        #expect(!error.description.contains("room:key"))

        let bare = RedisError(.invalidAddress, "Redis address 'x' does not start with redis://")
        #expect(bare.description == "Redis address 'x' does not start with redis:// [invalidAddress]")

        let wrongReply = RedisError(.unexpectedReply, "a reply the node cannot read", command: "EVALSHA",
                                    reply: RedisValue.array([.integer(1), .string(Array("n0|3".utf8))]).kindDescription)
        #expect(wrongReply.description
            == "a reply the node cannot read [unexpectedReply] while running EVALSHA; reply: array of 2")
    }

    @Test func aReplysKindNeverShowsABulkStringsBytes() {
        #expect(RedisValue.string(Array("driver key 42".utf8)).kindDescription == "bulk string (13 bytes)")
        #expect(RedisValue.integer(-1).kindDescription == "integer -1")
        #expect(RedisValue.null.kindDescription == "nil")
        #expect(RedisValue.status("OK").kindDescription == "status OK")
        #expect(RedisValue.error("NOSCRIPT No matching script").kindDescription == "error reply: NOSCRIPT No matching script")
        #expect(RedisValue.array([.null, .null, .null]).kindDescription == "array of 3")
    }
}
