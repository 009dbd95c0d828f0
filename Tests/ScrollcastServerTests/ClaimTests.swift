import Foundation
import Testing
import WebSockets
@testable import ScrollcastServer

@Suite("Driving: claims, refusals, disconnects")
struct ClaimTests {
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

    @Test func presenceOnJoinAndLeave() {
        let h = Harness()
        let (_, a) = h.viewer()
        let (second, _) = h.viewer()
        #expect(a.messages(ofType: "presence").last?["viewers"] as? Int == 2)
        h.hub.closed(second)
        #expect(a.messages(ofType: "presence").last?["viewers"] as? Int == 1)
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

