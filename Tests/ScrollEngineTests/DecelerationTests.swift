import Testing
@testable import ScrollEngine

/// Closed-form momentum (super-ultra/ScrollMechanics; facebook/pop decay).
@Suite struct DecelerationTests {
    @Test(arguments: DecelerationRate.allCases)
    func closedFormMatchesStepByStepVelocityDecay(rate: DecelerationRate) {
        let decay = DecayMotion(start: 100, velocity: 2000, rate: rate.value)
        // Sum the per-millisecond steps v·rate^k (pt/ms) by hand: the closed form is their integral.
        var x = 100.0
        var v = 2000.0 / 1000
        let steps = 400
        for _ in 0..<steps {
            // exact integral over one ms of v·rate^s: v·(rate − 1)/ln rate
            x += v * (rate.value - 1) / EngineMath.log(rate.value)
            v *= rate.value
        }
        #expect(abs(decay.offset(after: Double(steps)) - x) < 1e-9)
        #expect(abs(decay.velocity(after: Double(steps)) - v * 1000) < 1e-9)
    }

    @Test func restingPointForNormalRate() {
        // x0 − v0/(1000·ln 0.998) = 0 + 1000/2.00200267… ≈ 499.4998
        let decay = DecayMotion(start: 0, velocity: 1000, rate: 0.998)
        #expect(abs(decay.restingOffset - 499.49983317) < 1e-6)
        #expect(abs(decay.offset(after: 1_000_000) - decay.restingOffset) < 1e-9)
    }

    @Test func restingPointForFastRate() {
        // x0 − v0/(1000·ln 0.99) = 50 + 1000/10.05033585… ≈ 149.4991625
        let decay = DecayMotion(start: 50, velocity: 1000, rate: 0.99)
        #expect(abs(decay.restingOffset - 149.49916249) < 1e-6)
    }

    @Test func negativeVelocityDecaysTheOtherWay() {
        let decay = DecayMotion(start: 0, velocity: -1000, rate: 0.998)
        #expect(abs(decay.restingOffset + 499.49983317) < 1e-6)
        #expect(decay.offset(after: 100) < 0)
    }

    @Test func stopsWhenSlowerThanThresholdAndCloseToRest() {
        let decay = DecayMotion(start: 0, velocity: 3000, rate: 0.998)
        let duration = decay.duration
        #expect(abs(decay.velocity(after: duration) - DecayMotion.stopSpeed) < 1e-9)
        // Stopping there leaves less than a point to go.
        #expect(abs(decay.restingOffset - decay.offset(after: duration)) < 1)
        #expect(DecayMotion(start: 0, velocity: 0.5, rate: 0.998).duration == 0)
    }

    @Test func crossingTimeSolvesTheClosedForm() throws {
        let decay = DecayMotion(start: 0, velocity: 4000, rate: 0.998)
        let t = try #require(decay.timeToReach(1000))
        #expect(abs(decay.offset(after: t) - 1000) < 1e-9)
        // Hand check: rate^t = 1 + 1000·1000·ln(0.998)/4000 = 1 − 0.500500… → t = ln(0.4995)/ln(0.998)
        #expect(abs(t - EngineMath.log(1 + 1000 * 1000 * EngineMath.log(0.998) / 4000) / EngineMath.log(0.998)) < 1e-9)
        // Beyond the resting point it never gets there.
        #expect(decay.timeToReach(decay.restingOffset + 1) == nil)
        #expect(decay.timeToReach(-10) == nil)
    }
}
