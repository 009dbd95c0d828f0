import Testing
@testable import ScrollcastRooms

/// The frame clock's rules (docs/design.md, "Frame clock") on a pacer alone, with no room.
@Suite("Frame pacer")
@RoomActor struct FramePacerTests {
    let period = 1000.0 / 60

    @Test func firstInputGoesOutAtOnceAndAnIdleSceneWantsNoFrame() {
        var pacer = FramePacer(framePeriod: period)
        #expect(pacer.nextDue(isAnimating: false) == nil)
        let goesAtOnce = pacer.inputArrived(at: 5)
        #expect(goesAtOnce)
        pacer.frameSent(at: 5, for: .input)
        #expect(pacer.nextDue(isAnimating: false) == nil)
        #expect(pacer.nextDue(isAnimating: true) == 5 + period, "the next animation frame is a period after the input's")
    }

    @Test func inputWithinHalfAPeriodWaitsUntilHalfAPeriodAfterTheLastFrame() {
        var pacer = FramePacer(framePeriod: period)
        pacer.frameSent(at: 100, for: .input)
        let goesAtOnce = pacer.inputArrived(at: 103)
        #expect(!goesAtOnce)
        #expect(pacer.inputFramePending)
        #expect(pacer.nextDue(isAnimating: false) == 100 + period / 2)
        #expect(pacer.frameDue(at: 104, isAnimating: true) == nil, "too early even for an animating scene")
        #expect(pacer.frameDue(at: 100 + period / 2, isAnimating: false) == .input)
        pacer.frameSent(at: 100 + period / 2, for: .input)
        #expect(!pacer.inputFramePending)
    }

    @Test func animationFramesKeepTheirGridWhenTimersFireLate() {
        var pacer = FramePacer(framePeriod: period)
        pacer.frameSent(at: 0, for: .input)
        var sent: [Double] = []
        var now = 0.0
        for _ in 0..<60 {
            now += 0.3  // look a little after each due time, as a late timer does
            let due = pacer.nextDue(isAnimating: true)!
            now = max(now, due + 0.7)
            #expect(pacer.frameDue(at: now, isAnimating: true) == .animation)
            pacer.frameSent(at: now, for: .animation)
            sent.append(now)
        }
        // 60 frames a period apart on average, late timers or not: the grid is kept.
        #expect(abs((sent.last! - sent.first!) / 59 - period) < 0.01)
    }

    @Test func aRoomAWholePeriodBehindRestartsItsGrid() {
        var pacer = FramePacer(framePeriod: period)
        pacer.frameSent(at: 0, for: .input)
        pacer.frameSent(at: 3 * period, for: .animation)
        #expect(pacer.animationDue == 4 * period, "no burst of catch-up frames")
    }

    @Test func aTickWithinTheSlackOfTheDueTimeCountsAsOnTime() {
        var pacer = FramePacer(framePeriod: period)
        pacer.frameSent(at: 0, for: .input)
        #expect(pacer.timerSlack == 1)
        #expect(pacer.frameDue(at: period - 0.9, isAnimating: true) == .animation)
        #expect(pacer.frameDue(at: period - 1.1, isAnimating: true) == nil)
        #expect(FramePacer(framePeriod: 4).timerSlack == 0.5, "at most an eighth of a period")
    }

    @Test func aSkippedFrameMovesTheGridOnButDoesNotDelayInput() {
        var pacer = FramePacer(framePeriod: period)
        pacer.frameSent(at: 0, for: .input)
        #expect(pacer.frameDue(at: period, isAnimating: true) == .animation)
        pacer.frameSkipped(at: period)
        #expect(pacer.nextDue(isAnimating: true) == 2 * period, "the next look is a period later")
        #expect(pacer.lastFrameTime == 0, "nothing went out")
        let goesAtOnce = pacer.inputArrived(at: period + 1)
        #expect(goesAtOnce, "input a period after the last frame sent goes out at once")
        pacer.frameSkipped(at: 5 * period)
        #expect(abs(pacer.animationDue - 6 * period) < 1e-9, "a room that fell behind restarts its grid, as after a sent frame")
    }
}
