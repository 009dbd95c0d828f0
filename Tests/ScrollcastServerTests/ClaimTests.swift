import Foundation
import Testing
@testable import ScrollcastRooms

@Suite("Driving: claims, refusals, disconnects")
@RoomActor struct ClaimTests {
    @Test func aDragClaimsTheRoomAndOthersAreRefusedNotMixedIn() throws {
        let h = Harness()
        let (first, a) = h.viewer()
        let (second, b) = h.viewer()
        a.clear(); b.clear()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: first)
        #expect(b.messages(ofType: "presence").last?["driver"] as? String == "v1")

        h.tick()
        h.input(1, t: 5, "wheel", #""dx":0,"dy":100,"mode":"pixel""#, from: second)
        h.input(2, t: 6, "pointerDown", #""x":50,"y":200"#, from: second)
        h.tick(3)
        let refused = b.messages(ofType: "refused")
        #expect(refused.count == 2)
        #expect(refused.first?["input"] as? Int == 1)
        #expect((refused.first?["reason"] as? String)?.contains("v1 is driving") == true)
        #expect(refused.allSatisfy { $0["code"] as? String == "driving" }, "a program can tell 'wait' from 'watch only'")
        let named = b.messages(ofType: "frame").compactMap { $0["input"] as? [String: Any] }
        #expect(!named.isEmpty)
        #expect(named.allSatisfy { $0["viewer"] as? String == "v1" }, "refused input is never mixed in")
        #expect(a.messages(ofType: "refused").isEmpty)

        h.input(2, t: 30, "pointerUp", #""x":100,"y":400"#, from: first)
        #expect(b.messages(ofType: "presence").last?["driver"] is NSNull)
        h.tick()
        h.input(3, t: 60, "wheel", #""dx":0,"dy":100,"mode":"pixel""#, from: second)
        h.tick()
        #expect(b.messages(ofType: "refused").count == 2, "once the gesture ends anyone may drive")
        let last = try #require(b.messages(ofType: "frame").last)
        #expect((last["input"] as? [String: Any])?["viewer"] as? String == "v2")
    }

    @Test func aDriverThatDisconnectsMidGestureReleasesTheRoomAtOnce() throws {
        let h = Harness()
        let (first, _) = h.viewer()
        let (second, b) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: first)
        h.input(2, t: 10, "pointerMove", #""x":100,"y":300"#, from: first)
        b.clear()
        h.hub.closed(first)
        let presence = try #require(b.messages(ofType: "presence").last)
        #expect(presence["viewers"] as? Int == 1)
        #expect(presence["driver"] is NSNull)
        h.tick()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: second)
        #expect(b.messages(ofType: "refused").isEmpty)
        #expect(b.messages(ofType: "presence").last?["driver"] as? String == "v2")
    }

    @Test func presenceOnJoinAndLeave() throws {
        let h = Harness()
        let (_, a) = h.viewer()
        let (second, b) = h.viewer()
        #expect(a.messages(ofType: "presence").last?["viewers"] as? Int == 2)
        #expect(b.messages(ofType: "presence").isEmpty, "the joiner's snapshot already says it")
        h.hub.closed(second)
        let room = try #require(h.registry.room(named: "demo"))
        #expect(a.messages(ofType: "presence").count == 1, "a leave right after a join waits its turn")
        #expect(room.nextTickDue == room.now + Room.presenceInterval)
        h.clock.advance(by: Room.presenceInterval)
        h.registry.tick()
        #expect(a.messages(ofType: "presence").count == 2)
        #expect(a.messages(ofType: "presence").last?["viewers"] as? Int == 1)
    }

    @Test func aBurstOfJoinsSendsOnePresencePerIntervalWithTheLatestCount() throws {
        let h = Harness()
        let (_, first) = h.viewer()
        var sinks = [first]
        for _ in 0..<49 { sinks.append(h.viewer().1) }
        let room = try #require(h.registry.room(named: "demo"))
        #expect(first.messages(ofType: "presence").count == 1, "the first join is announced at once, the rest wait")
        h.clock.advance(by: Room.presenceInterval)
        h.registry.tick()
        for (index, sink) in sinks.enumerated() {
            let presences = sink.messages(ofType: "presence")
            #expect(presences.last?["viewers"] as? Int == 50, "viewer \(index) ends up with the latest count")
            #expect(presences.count <= 2)
        }
        #expect(room.nextTickDue == nil, "nothing more to announce")
    }

    @Test func aChangeOfDriverIsAnnouncedAtOnceEvenRightAfterAJoin() throws {
        let h = Harness()
        let (first, a) = h.viewer()
        let (_, b) = h.viewer()
        let (_, c) = h.viewer()
        #expect(b.messages(ofType: "presence").isEmpty, "c's join is still waiting")
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: first)
        for sink in [a, b, c] {
            let last = try #require(sink.messages(ofType: "presence").last)
            #expect(last["driver"] as? String == "v1")
            #expect(last["viewers"] as? Int == 3, "and it carries the waiting count too")
        }
    }

    @Test func lockedRoomOnlyLetsKeyHoldersDrive() throws {
        let h = Harness()
        // The server makes the key (a client's own choice is ignored) and tells only the creator.
        let (owner, a) = h.viewer(joining: "locked", extra: #","lock":true,"driverKey":"secret""#)
        let key = try #require(a.messages(ofType: "snapshot").first?["driverKey"] as? String)
        #expect(key != "secret" && key.count >= 32)
        let (guest, g) = h.viewer(joining: "locked", extra: #","driverKey":"secret""#)
        #expect(g.messages(ofType: "snapshot").first?["driverKey"] == nil)
        let (friend, f) = h.viewer(joining: "locked", extra: #","driverKey":"\#(key)""#)
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: guest)
        #expect((g.messages(ofType: "refused").first?["reason"] as? String)?.contains("locked") == true)
        #expect(g.messages(ofType: "refused").first?["code"] as? String == "locked")
        #expect(g.messages(ofType: "snapshot").first?["locked"] as? Bool == true, "watchers learn the room is locked at once")
        #expect(g.messages(ofType: "presence").allSatisfy { $0["locked"] as? Bool == true })
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: owner)
        h.tick()
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: friend)
        #expect(a.messages(ofType: "refused").isEmpty)
        #expect(f.messages(ofType: "refused").isEmpty)
    }

    @Test func lockedRoomWithoutAKeyGetsARandomOneForItsCreator() throws {
        let h = Harness()
        let (owner, a) = h.viewer(joining: "mine", extra: #","lock":true"#)
        let key = try #require(a.messages.first?["driverKey"] as? String)
        #expect(key.count >= 16)
        let (_, g) = h.viewer(joining: "mine")
        #expect(g.messages.first?["driverKey"] == nil, "only drivers learn the key")
        let (_, open) = h.viewer(joining: "open-room")
        #expect(open.messages(ofType: "snapshot").first?["locked"] as? Bool == false)
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: owner)
        #expect(a.messages(ofType: "refused").isEmpty)
        let (friend, f) = h.viewer(joining: "mine", extra: #","driverKey":"\#(key)""#)
        h.tick()
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: friend)
        #expect(f.messages(ofType: "refused").isEmpty)
    }

    @Test func inputTimeGoingBackwardsIsRefused() {
        let h = Harness()
        let (driver, a) = h.viewer()
        h.input(1, t: 100, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: driver)
        h.tick()
        h.input(2, t: 50, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: driver)
        #expect(a.messages(ofType: "refused").first?["input"] as? Int == 2)
        #expect(a.messages(ofType: "refused").first?["code"] as? String == "outOfOrder")
    }
}

