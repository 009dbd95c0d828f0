import Testing
@testable import ScrollcastRooms

@Suite("Limits and protocol errors")
@RoomActor struct LimitsTests {
    @Test func viewersBeyondTheLimitAreClosedWith1013() throws {
        var limits = ServerLimits()
        limits.maxViewers = 2
        let h = Harness(limits: limits)
        h.viewer()
        h.viewer()
        let (_, third) = h.viewer(joining: nil)
        let closed = try #require(third.closedWith)
        #expect(closed.code == .tryAgainLater)
        #expect(closed.reason.contains("server full"))
        #expect(h.hub.connectionCount == 2)
    }

    @Test func roomsBeyondTheLimitAreClosedWith1013() throws {
        var limits = ServerLimits()
        limits.maxRooms = 1
        let h = Harness(limits: limits)
        h.viewer(joining: "one")
        let (_, sameRoom) = h.viewer(joining: "one")
        let (_, newRoom) = h.viewer(joining: "two")
        #expect(sameRoom.closedWith == nil)
        let closed = try #require(newRoom.closedWith)
        #expect(closed.code == .tryAgainLater)
        #expect(closed.reason.contains("rooms"))
    }

    @Test func noJoinWithinTheDeadlineCloses1008() throws {
        let h = Harness()
        let (_, waiting) = h.viewer(joining: nil)
        let (_, joined) = h.viewer()
        h.clock.advance(by: 9_999)
        h.hub.housekeeping()
        #expect(waiting.closedWith == nil)
        h.clock.advance(by: 1)
        h.hub.housekeeping()
        #expect(waiting.closedWith?.code == .policyViolation)
        #expect(waiting.received.isEmpty, "nothing is sent before join")
        #expect(joined.closedWith == nil)
    }

    @Test func floodingIsRefusedThenDisconnected() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        var sent = 0
        while a.closedWith == nil, sent < 10_000 {
            sent += 1
            h.input(UInt64(sent), t: Double(sent), "wheel", #""dx":0,"dy":1,"mode":"pixel""#, from: driver)
        }
        let refused = a.messages(ofType: "refused")
        #expect(refused.count >= 100)
        #expect((refused.first?["reason"] as? String)?.contains("too many inputs") == true)
        #expect(refused.allSatisfy { $0["code"] as? String == "rateLimited" })
        #expect(refused.first?["input"] as? Int == 121, "the burst of 120 passes")
        #expect(a.closedWith?.code == .policyViolation)
        #expect(h.metric(ServerMetrics.Name.refusedInputs) == Double(refused.count))
    }

    @Test func inputWithinTheSustainedRateIsNeverRefused() {
        let h = Harness()
        let (driver, a) = h.viewer()
        for i in 1...2_000 {  // 200 per second for 10 s
            h.clock.advance(by: 5)
            h.input(UInt64(i), t: Double(i * 5), "wheel", #""dx":0,"dy":1,"mode":"pixel""#, from: driver)
            if i % 3 == 0 { h.registry.tick() }
        }
        #expect(a.messages(ofType: "refused").isEmpty)
        #expect(a.closedWith == nil)
    }

    @Test(arguments: [
        (#"{"type":"input","id":1,"t":0,"kind":"wheel","dx":0,"dy":1,"mode":"pixel"}"#, "before join"),
        (#"{"type":"nope"}"#, "unknown type"),
        ("not json", "not JSON"),
        (#"{"type":"join","room":"bad room!"}"#, "bad room name"),
    ])
    func malformedMessagesGetErrorThenClose1008(text: String, _ why: String) throws {
        let h = Harness()
        let (id, sink) = h.viewer(joining: nil)
        h.send(text, from: id)
        #expect(sink.messages.map { $0["type"] as? String } == ["error"], "\(why)")
        #expect(sink.closedWith?.code == .policyViolation, "\(why)")
        #expect(!(sink.closedWith?.reason.isEmpty ?? true))
    }

    @Test func secondJoinIsRefusedWith1008() {
        let h = Harness()
        let (id, sink) = h.viewer()
        h.send(#"{"type":"join","room":"other"}"#, from: id)
        #expect(sink.messages.last?["type"] as? String == "error")
        #expect(sink.closedWith?.code == .policyViolation)
    }

    @Test func binaryMessagesAreRefusedWith1003() {
        let h = Harness()
        let (id, sink) = h.viewer()
        h.service.receivedBinary(from: id)
        #expect(sink.closedWith?.code == .unsupportedData)
    }

    @Test func emptyRoomLivesForTheGracePeriodThenGoes() {
        var limits = ServerLimits()
        limits.roomGraceMilliseconds = 30_000
        let h = Harness(limits: limits)
        let (id, _) = h.viewer(joining: "brief")
        h.hub.closed(id)
        h.clock.advance(by: 29_000)
        h.hub.housekeeping()
        #expect(h.registry.room(named: "brief") != nil)
        h.clock.advance(by: 1_000)
        h.hub.housekeeping()
        #expect(h.registry.room(named: "brief") == nil)
        #expect(h.metric(ServerMetrics.Name.rooms) == 0)
    }

    @Test func aViewerReturningWithinTheGraceKeepsTheRoom() {
        let h = Harness()
        let (id, _) = h.viewer(joining: "back")
        h.hub.closed(id)
        h.clock.advance(by: 20_000)
        h.viewer(joining: "back")
        h.clock.advance(by: 20_000)
        h.hub.housekeeping()
        #expect(h.registry.room(named: "back") != nil)
    }
}
