import ScrollcastRooms
import Foundation
import Redis
import RedisTesting
import Testing
@testable import ScrollcastCluster

/// The Lua scripts of `ClusterScripts` against a real redis-server, through EVAL as a node runs
/// them. Node ids look like the default ones (HOST:PORT) so the lease value's parsing meets the
/// colons it does in production.
@Suite("Cluster scripts")
@RoomActor struct ClusterScriptTests {
    static let node1 = "127.0.0.1:8081"
    static let node2 = "127.0.0.1:8082"
    static let room = "lobby"
    /// Long enough that a test never sees it run out: what happens then is down to the scripts.
    static let longLease = 60_000

    // MARK: claim

    @Test("claim: free room granted at epoch 1; held while the holder's node channel has a subscriber; taken at once when it has none; a node claiming again gets a new epoch")
    func claim() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let lease = redis.keys.lease(room)
        let node1Link = try Listener(redis, channel: redis.keys.nodeChannel(node1))

        #expect(try redis.claim(room, by: node1, leaseMilliseconds: Self.longLease) == .granted(node: node1, epoch: 1))
        #expect(try redis.text(lease) == "\(node1)|1")
        #expect(try redis.pttl(lease) > Int64(Self.longLease - 10_000))

        // Node 1 lives (its node channel is subscribed): node 2 is told who holds the room, and
        // the refused claim changes nothing, not even the epoch counter.
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .held(node: node1, epoch: 1))
        #expect(try redis.text(lease) == "\(node1)|1")
        #expect(try redis.text(redis.keys.epoch(room)) == "1")

        // Node 1's process dies: its connection closes. Redis notices the closed socket on its
        // own time, so wait for the count the script reads to drop, then claim once: with a
        // minute left on the lease, only the dead-holder rule can grant it.
        node1Link.close()
        let gone = try redis.poll { try redis.subscriberCount(redis.keys.nodeChannel(node1)) == 0 ? true : nil }
        try #require(gone == true, "Redis still counts node 1's closed subscriber")
        // Unless Redis itself has just started (nodes may still be subscribing again): then the
        // holder is waited out.
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease, settleMilliseconds: 60_000)
                == .held(node: node1, epoch: 1))
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .granted(node: node2, epoch: 2))
        #expect(try redis.text(lease) == "\(node2)|2")
        #expect(try redis.pttl(lease) > Int64(Self.longLease - 10_000))

        // Node 2 is alive now; node 1 comes back and is told node 2 holds it.
        let node2Link = try Listener(redis, channel: redis.keys.nodeChannel(node2))
        // Kept open to the end: Swift may free an object after its last use, which would close it.
        defer { node2Link.close() }
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: Self.longLease) == .held(node: node2, epoch: 2))

        // A restarted node 2 (same id, subscribed again) claims its own room: it must get a
        // new epoch, so whatever its older self still sends under epoch 2 is fenced.
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .granted(node: node2, epoch: 3))
        #expect(try redis.text(lease) == "\(node2)|3")
        #expect(try redis.renew(room, value: "\(node2)|2", epoch: 2, leaseMilliseconds: Self.longLease) == .string(Array("\(node2)|3".utf8)))
        #expect(try redis.publish(room, value: "\(node2)|2", payload: Array("old self".utf8), seq: "9") == .integer(-1))
        #expect(try redis.text(lease) == "\(node2)|3")
    }

    @Test("claim: a held lease whose holder lives is granted once its PX runs out, at the next epoch")
    func claimAfterExpiry() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let node1Link = try Listener(redis, channel: redis.keys.nodeChannel(node1))
        defer { node1Link.close() }

        let start = Date()
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: 200) == .granted(node: node1, epoch: 1))
        var refusals: [ClaimReply] = []
        let granted = try redis.poll { () -> ClaimReply? in
            let reply = try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease)
            if case .granted = reply { return reply }
            refusals.append(reply)
            return nil
        }
        let waited = Date().timeIntervalSince(start)
        // The holder was subscribed all along, so only the lease's expiry can have let node 2 in.
        #expect(try redis.subscriberCount(redis.keys.nodeChannel(node1)) == 1)
        #expect(granted == .granted(node: node2, epoch: 2))
        // Not before the 200 ms (10 ms of slack for Redis's and our clocks' rounding).
        #expect(waited >= 0.19, "granted after \(waited) s")
        // Each refused claim named the holder and burnt no epoch (the grant above got 2).
        #expect(!refusals.isEmpty)
        #expect(refusals.allSatisfy { $0 == .held(node: node1, epoch: 1) })
        #expect(try redis.text(redis.keys.lease(room)) == "\(node2)|2")
    }

    // MARK: renew

    @Test("renew: the holder gets 1 and its TTL back; a lease another node took answers with that node's value")
    func renewHeld() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let lease = redis.keys.lease(room)
        let leaseMilliseconds = 10_000
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: leaseMilliseconds) == .granted(node: node1, epoch: 1))

        // Let the TTL visibly run down, then renew and read the TTL in one pipeline, so the
        // reading is not at the mercy of how busy the machine is.
        let before = try redis.poll { () -> Int64? in
            let ttl = try redis.pttl(lease)
            return ttl <= Int64(leaseMilliseconds - 300) ? ttl : nil
        }
        let ranDown = try #require(before)
        let replies = try redis.pipeline([
            redis.evalCommand(ClusterScripts.renew, keys: [lease, redis.keys.epoch(room)],
                              ["\(node1)|1", String(leaseMilliseconds), "1"].map { Array($0.utf8) }),
            ["PTTL", lease].map { Array($0.utf8) },
        ])
        #expect(replies[0] == .integer(1))
        let after = try #require(replies[1].integer)
        #expect(after > ranDown + 200, "PTTL \(ranDown) before the renewal, \(after) after")
        #expect(try redis.text(lease) == "\(node1)|1")
        #expect(try redis.text(redis.keys.epoch(room)) == "1")

        // Node 2 takes the room (node 1 has no subscriber: it counts as dead). Node 1's renewal
        // is refused with the new holder's value, which the node parses to follow it, and the
        // new holder's lease is left as it was.
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .granted(node: node2, epoch: 2))
        let answer = try redis.renew(room, value: "\(node1)|1", epoch: 1, leaseMilliseconds: leaseMilliseconds)
        #expect(answer == .string(Array("\(node2)|2".utf8)))
        #expect(answer.text.flatMap(ClusterKeys.parseLease).map { "\($0.node)#\($0.epoch)" } == "\(node2)#2")
        #expect(try redis.text(lease) == "\(node2)|2")
        #expect(try redis.pttl(lease) > Int64(Self.longLease - 10_000))
    }

    @Test("renew: a lease that ran out is taken back while the epoch is still the caller's, and not once it moved on")
    func renewExpired() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let lease = redis.keys.lease(room)
        let expired = { try redis.poll { try redis.command(["EXISTS", lease]) == .integer(0) ? true : nil } == true }

        // Redis was away longer than the lease: it ran out, nobody else claimed.
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: 100) == .granted(node: node1, epoch: 1))
        try #require(try expired(), "the 100 ms lease never ran out")
        #expect(try redis.renew(room, value: "\(node1)|1", epoch: 1, leaseMilliseconds: Self.longLease) == .integer(1))
        #expect(try redis.text(lease) == "\(node1)|1")
        #expect(try redis.pttl(lease) > Int64(Self.longLease - 10_000))
        #expect(try redis.text(redis.keys.epoch(room)) == "1")

        // Node 2 held it at epoch 2 in between and its lease ran out too: node 1's epoch is
        // history, so it must not come back, and the key stays free for a proper claim.
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: 100) == .granted(node: node2, epoch: 2))
        try #require(try expired(), "node 2's 100 ms lease never ran out")
        let answer = try redis.renew(room, value: "\(node1)|1", epoch: 1, leaseMilliseconds: Self.longLease)
        #expect(answer != .integer(1))
        #expect(answer == .null)
        #expect(try redis.command(["EXISTS", lease]) == .integer(0))
        #expect(try redis.text(redis.keys.epoch(room)) == "2")
        // The holder of epoch 2 itself may still take it back.
        #expect(try redis.renew(room, value: "\(node2)|2", epoch: 2, leaseMilliseconds: Self.longLease) == .integer(1))
        #expect(try redis.text(lease) == "\(node2)|2")
    }

    // MARK: release

    @Test("release deletes the lease only for the value that holds it, and leaves the epoch counter")
    func release() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let lease = redis.keys.lease(room)
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: Self.longLease) == .granted(node: node1, epoch: 1))
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: Self.longLease) == .granted(node: node1, epoch: 2))

        // Another node's value, and the node's own older value, release nothing.
        #expect(try redis.release(room, value: "\(node2)|2") == .integer(0))
        #expect(try redis.release(room, value: "\(node1)|1") == .integer(0))
        #expect(try redis.text(lease) == "\(node1)|2")

        #expect(try redis.release(room, value: "\(node1)|2") == .integer(1))
        #expect(try redis.command(["EXISTS", lease]) == .integer(0))
        #expect(try redis.release(room, value: "\(node1)|2") == .integer(0))
        // The counter survives, so the next owner still fences every earlier one.
        #expect(try redis.text(redis.keys.epoch(room)) == "2")
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .granted(node: node2, epoch: 3))
    }

    // MARK: publish

    @Test("publish: a stale lease publishes nothing and sets no seq; the current one publishes the bytes whole and sets seq only for frames")
    func publish() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let state = redis.keys.state(room)
        let viewers = try Listener(redis, channel: redis.keys.roomChannel(room))
        defer { viewers.close() }
        // Node 1 held epoch 1, node 2 took over (node 1 has no subscriber: dead).
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: Self.longLease) == .granted(node: node1, epoch: 1))
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .granted(node: node2, epoch: 2))

        let stale = RelayEnvelope(kind: .frame, epoch: 1, sequence: 5, publishedAt: 1, node: node1, audience: .everyone,
                                  v1: Array("{\"stale\":true}".utf8), v2: nil).encoded()
        #expect(try redis.publish(room, value: "\(node1)|1", payload: stale, seq: "5") == .integer(-1))
        #expect(try redis.hash(state)["seq"] == nil)

        // A reliable message of the current owner, binary: it has NUL bytes to lose.
        let reliable = RelayEnvelope(kind: .reliable, epoch: 2, publishedAt: 2, node: node2, audience: .viewer("\(node1)/v1"),
                                     v1: nil, v2: [0, 1, 0, 255, 13, 10, 0]).encoded()
        try #require(reliable.contains(0))
        #expect(try redis.publish(room, value: "\(node2)|2", payload: reliable, seq: "") == .integer(1))
        // One connection publishes both, so Redis would have delivered the stale one first.
        #expect(viewers.messages.wait { !$0.isEmpty })
        #expect(viewers.messages.all.first == reliable)
        #expect(RelayEnvelope.decode(viewers.messages.all.first ?? [])?.v2 == [0, 1, 0, 255, 13, 10, 0])
        #expect(try redis.hash(state)["seq"] == nil, "a message that is no frame set seq")

        let frame = RelayEnvelope(kind: .frame, epoch: 2, sequence: 42, publishedAt: 3, node: node2, audience: .everyone,
                                  v1: Array("{\"type\":\"frame\"}".utf8), v2: [0, 0]).encoded()
        #expect(try redis.publish(room, value: "\(node2)|2", payload: frame, seq: "42") == .integer(1))
        #expect(try redis.hash(state)["seq"] == "42")

        // An empty payload publishes nothing (but still notes the frame number).
        #expect(try redis.publish(room, value: "\(node2)|2", payload: [], seq: "43") == .integer(0))
        #expect(try redis.hash(state)["seq"] == "43")
        let marker = Array("marker\u{0}".utf8)
        #expect(try redis.publish(room, value: "\(node2)|2", payload: marker, seq: "") == .integer(1))
        #expect(viewers.messages.wait { $0.count >= 3 })
        #expect(viewers.messages.all == [reliable, frame, marker])
    }

    // MARK: the room store's writes

    @Test("created, commitMove, checkpoint and appendLog refuse a stale lease with -1 and change nothing")
    func fencedWrites() throws {
        let redis = try ScriptRedis()
        let (node1, node2, room) = (Self.node1, Self.node2, Self.room)
        let (state, log) = (redis.keys.state(room), redis.keys.log(room))
        #expect(try redis.claim(room, by: node1, leaseMilliseconds: Self.longLease) == .granted(node: node1, epoch: 1))
        #expect(try redis.claim(room, by: node2, leaseMilliseconds: Self.longLease) == .granted(node: node2, epoch: 2))
        let (current, old) = ("\(node2)|2", "\(node1)|1")

        #expect(try redis.created(room, value: current, scene: "demo", keyDigest: "") == .integer(1))
        #expect(try redis.commitMove(room, value: current, rowMoveVersion: 1, order: "1,0") == .integer(1))
        #expect(try redis.checkpoint(room, value: current, offset: "120.5") == .integer(1))
        #expect(try redis.appendLog(room, value: current, mostLines: 100, lines: ["a", "b"]) == .integer(1))
        let stateBefore = try redis.hash(state)
        #expect(stateBefore == ["scene": "demo", "key": "", "version": "1", "order": "1,0", "rest": "120.5"])

        #expect(try redis.created(room, value: old, scene: "other", keyDigest: "d") == .integer(-1))
        #expect(try redis.commitMove(room, value: old, rowMoveVersion: 2, order: "0,1") == .integer(-1))
        #expect(try redis.checkpoint(room, value: old, offset: "9") == .integer(-1))
        #expect(try redis.appendLog(room, value: old, mostLines: 1, lines: ["stale"]) == .integer(-1))
        // A lease value of no node at all is as stale as an old one.
        #expect(try redis.commitMove(room, value: "", rowMoveVersion: 2, order: "0,1") == .integer(-1))
        #expect(try redis.hash(state) == stateBefore)
        #expect(try redis.list(log) == ["a", "b"])

        // With no lease at all (it ran out or was released) nothing is written either.
        #expect(try redis.release(room, value: current) == .integer(1))
        #expect(try redis.checkpoint(room, value: current, offset: "9") == .integer(-1))
        #expect(try redis.appendLog(room, value: current, mostLines: 100, lines: ["late"]) == .integer(-1))
        #expect(try redis.hash(state) == stateBefore)
        #expect(try redis.list(log) == ["a", "b"])
    }

    @Test("created starts the room afresh; commitMove takes only the version after the stored one")
    func createdAndCommitMove() throws {
        let redis = try ScriptRedis()
        let room = Self.room
        let (state, log) = (redis.keys.state(room), redis.keys.log(room))
        #expect(try redis.claim(room, by: Self.node1, leaseMilliseconds: Self.longLease) == .granted(node: Self.node1, epoch: 1))
        let value = "\(Self.node1)|1"
        // Leftovers of an earlier room of the same name must not leak into the new one.
        _ = try redis.command(["HSET", state, "rest", "5", "version", "7", "order", "2,1,0", "seq", "99"])
        _ = try redis.command(["RPUSH", log, "old line"])

        #expect(try redis.created(room, value: value, scene: "demo", keyDigest: "abc") == .integer(1))
        #expect(try redis.hash(state) == ["scene": "demo", "key": "abc", "version": "0", "order": ""])
        #expect(try redis.list(log) == [])

        // Version 2 does not follow 0; a stale replay of 0 neither.
        #expect(try redis.commitMove(room, value: value, rowMoveVersion: 2, order: "2,0,1") == .integer(0))
        #expect(try redis.commitMove(room, value: value, rowMoveVersion: 0, order: "2,0,1") == .integer(0))
        #expect(try redis.hash(state)["version"] == "0")
        #expect(try redis.hash(state)["order"] == "")

        #expect(try redis.commitMove(room, value: value, rowMoveVersion: 1, order: "1,0,2") == .integer(1))
        #expect(try redis.hash(state)["version"] == "1")
        #expect(try redis.hash(state)["order"] == "1,0,2")
        // The same move twice (a retry after a lost reply) is not applied again.
        #expect(try redis.commitMove(room, value: value, rowMoveVersion: 1, order: "0,1,2") == .integer(0))
        #expect(try redis.hash(state)["order"] == "1,0,2")

        #expect(try redis.commitMove(room, value: value, rowMoveVersion: 2, order: "2,1,0;3") == .integer(1))
        let fields = try redis.hash(state)
        #expect(fields["version"] == "2")
        #expect(fields["order"] == "2,1,0;3")
        #expect(fields["scene"] == "demo")
        #expect(fields["key"] == "abc")
    }

    @Test("checkpoint notes the resting offset")
    func checkpoint() throws {
        let redis = try ScriptRedis()
        let room = Self.room
        #expect(try redis.claim(room, by: Self.node1, leaseMilliseconds: Self.longLease) == .granted(node: Self.node1, epoch: 1))
        #expect(try redis.created(room, value: "\(Self.node1)|1", scene: "demo", keyDigest: "") == .integer(1))
        #expect(try redis.checkpoint(room, value: "\(Self.node1)|1", offset: "-12.25") == .integer(1))
        #expect(try redis.hash(redis.keys.state(room))["rest"] == "-12.25")
        #expect(try redis.checkpoint(room, value: "\(Self.node1)|1", offset: "300") == .integer(1))
        #expect(try redis.hash(redis.keys.state(room))["rest"] == "300")
    }

    @Test("appendLog keeps only the newest lines and takes a full batch of the store's in one call")
    func appendLog() throws {
        let redis = try ScriptRedis()
        let room = Self.room
        let log = redis.keys.log(room)
        #expect(try redis.claim(room, by: Self.node1, leaseMilliseconds: Self.longLease) == .granted(node: Self.node1, epoch: 1))
        let value = "\(Self.node1)|1"

        #expect(try redis.appendLog(room, value: value, mostLines: 3, lines: ["1", "2"]) == .integer(1))
        #expect(try redis.list(log) == ["1", "2"])
        #expect(try redis.appendLog(room, value: value, mostLines: 3, lines: ["3", "4", "5"]) == .integer(1))
        #expect(try redis.list(log) == ["3", "4", "5"])

        // The store sends at most `linesPerAppend` lines per call: unpack must take them all.
        let batch = (1...ClusterRoomStore.linesPerAppend).map { "{\"frame\":\($0)}" }
        #expect(batch.count == 500)
        #expect(try redis.appendLog(room, value: value, mostLines: 1000, lines: batch) == .integer(1))
        let kept = try redis.list(log)
        #expect(kept.count == 503)
        #expect(kept.prefix(3) == ["3", "4", "5"])
        #expect(kept.last == "{\"frame\":500}")

        // A batch longer than what is kept leaves just its own newest lines.
        #expect(try redis.appendLog(room, value: value, mostLines: 100, lines: batch) == .integer(1))
        #expect(try redis.list(log) == Array(batch.suffix(100)))
    }
}
