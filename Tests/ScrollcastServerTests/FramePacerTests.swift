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

    @Test func roomsOnACommonGridAreDueAtTheSameInstantsWhateverTheirPhase() {
        // Two rooms made 5 ms and 11.3 ms after the server clock's zero: each room's time starts
        // at its creation, so the common grid falls at -origin on its own scale.
        let origins = [5.0, 11.3]
        var pacers = origins.map { FramePacer(framePeriod: period, gridPoint: -$0) }
        // Input at different server times: both frames go out at once, off the grid.
        for (index, serverTime) in [1000.0, 1007.9].enumerated() {
            let now = serverTime - origins[index]
            let goesAtOnce = pacers[index].inputArrived(at: now)
            #expect(goesAtOnce, "an input's frame is never held for the grid")
            pacers[index].frameSent(at: now, for: .input)
        }
        let dues = pacers.indices.map { pacers[$0].nextDue(isAnimating: true)! + origins[$0] }
        #expect(abs(dues[0] - dues[1]) < 1e-6, "both animate on from the same instant: \(dues)")
        let gridIndex = dues[0] / period
        #expect(abs(gridIndex - gridIndex.rounded()) < 1e-6, "a point of the common grid")
        for (index, serverTime) in [1000.0, 1007.9].enumerated() {
            let gap = dues[index] - serverTime
            #expect(gap >= period / 2 - 1e-9 && gap < 1.5 * period, "at least half a period after the input's frame: \(gap)")
        }
        // Once on the grid, a room stays there; falling behind restarts it on the grid again.
        pacers[0].frameSent(at: dues[0] - origins[0], for: .animation)
        #expect(abs(pacers[0].animationDue + origins[0] - (dues[0] + period)) < 1e-6)
        pacers[1].frameSkipped(at: dues[1] - origins[1] + 2.5 * period)
        let restarted = (pacers[1].animationDue + origins[1]) / period
        #expect(abs(restarted - restarted.rounded()) < 1e-6, "a restarted grid is the common one")
    }
}
