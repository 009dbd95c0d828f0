import Testing
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// The frame timer and housekeeping, run by the scheduler as the server runs them, with the
/// manual scheduler standing in for the transport's service thread.
@Suite("Room timers")
@RoomActor struct RoomTimersTests {
    @Test func aFlingIsAnimatedByTheFrameTimerAloneUntilItRests() throws {
        let h = Harness()
        h.service.started(port: 1)
        let (driver, sink) = h.viewer()
        sink.clear()
        h.fling(by: driver, steps: 6, interval: 10, stride: 60)
        let framesAtRelease = sink.messages(ofType: "frame").count

        // Nobody calls tick: only the timers the room layer set run.
        h.scheduler.advance(by: 500)
        let frames = sink.messages(ofType: "frame")
        let animated = frames.count - framesAtRelease
        #expect(animated >= 27 && animated <= 31, "about 60 frames/s while the fling decays: \(animated) in 500 ms")
        let sequences = frames.compactMap { $0["seq"] as? Int }
        #expect(sequences == Array(sequences.first!...sequences.last!), "no sequence number skipped")

        h.scheduler.advance(by: 10_000)
        let restingFrame = try #require(sink.messages(ofType: "frame").last)
        #expect(restingFrame["animating"] as? Bool == false, "the fling came to rest")
        let count = sink.messages(ofType: "frame").count
        h.scheduler.advance(by: 5_000)
        #expect(sink.messages(ofType: "frame").count == count, "a resting room sends nothing")
        #expect(h.scheduler.pendingTimers == 1, "only housekeeping is left waiting")
    }

    @Test func aDeferredInputFrameGoesOutHalfAPeriodAfterTheLastFrame() throws {
        let h = Harness()
        let (driver, sink) = h.viewer()
        sink.clear()
        h.input(1, t: 0, "wheel", #""dx":0,"dy":4,"mode":"pixel""#, from: driver)
        #expect(sink.messages(ofType: "frame").count == 1, "the first input's frame goes out at once")
        h.scheduler.advance(by: 2)
        h.input(2, t: 2, "wheel", #""dx":0,"dy":4,"mode":"pixel""#, from: driver)
        #expect(sink.messages(ofType: "frame").count == 1, "the second waits")
        h.scheduler.advance(by: h.limits.tickMilliseconds / 2 - 2 - 1.5)
        #expect(sink.messages(ofType: "frame").count == 1)
        h.scheduler.advance(by: 1.5)
        let last = try #require(sink.messages(ofType: "frame").last)
        #expect(sink.messages(ofType: "frame").count == 2)
        #expect((last["input"] as? [String: Any])?["id"] as? Int == 2, "the frame names the latest input")
    }

    @Test func housekeepingClosesLateJoinersAndDropsExpiredRoomsOnItsOwn() {
        var limits = ServerLimits()
        limits.joinDeadlineMilliseconds = 3_000
        limits.roomGraceMilliseconds = 5_000
        let h = Harness(limits: limits)
        h.service.started(port: 1)
        let (_, silent) = h.viewer(joining: nil)
        let (leaver, _) = h.viewer(joining: "brief")
        h.service.closed(leaver)
        h.scheduler.advance(by: 2_500)
        #expect(silent.closedWith == nil)
        h.scheduler.advance(by: 1_000)
        #expect(silent.closedWith?.code == .policyViolation)
        #expect(silent.closedWith?.reason == "no join within 3 s of connecting")
        #expect(h.registry.room(named: "brief") != nil)
        h.scheduler.advance(by: 2_000)
        #expect(h.registry.room(named: "brief") == nil, "dropped by the housekeeping timer after the grace")
    }

    @Test func housekeepingRunsOnlyOnceStarted() {
        var limits = ServerLimits()
        limits.joinDeadlineMilliseconds = 1_000
        let h = Harness(limits: limits)
        let (_, silent) = h.viewer(joining: nil)
        h.scheduler.advance(by: 5_000)
        #expect(silent.closedWith == nil)
        #expect(h.scheduler.pendingTimers == 0)
        h.service.started(port: 1)
        h.scheduler.advance(by: 1_000)
        #expect(silent.closedWith?.code == .policyViolation)
        #expect(h.scheduler.pendingTimers == 1, "one housekeeping timer, rescheduled each run")
    }
}
