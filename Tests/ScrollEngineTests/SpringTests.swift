import Testing
@testable import ScrollEngine

/// Critically damped bounce spring: mass 1, stiffness 100, damping ratio 1 (ω = 10 rad/s).
@Suite struct SpringTests {
    @Test func matchesTheAnalyticSolutionAtEachStep() {
        // x(t) = (x0 + (v0 + ω x0) t) e^(−ωt) with x0 = 0, v0 = 3000 pt/s → 3000 t e^(−10t)
        let spring = SpringTrajectory(from: 500, velocity: 3000, target: 500)
        for ms in [1.0, 50, 100, 250, 600] {
            let t = ms / 1000
            #expect(approx(spring.offset(after: ms) - 500, 3000 * t * EngineMath.exp(-10 * t), 1e-9))
        }
        // Hand value: at 100 ms, 300·e^(−1) ≈ 110.3638 pt past the edge.
        #expect(approx(spring.offset(after: 100), 500 + 110.36383235143269, 1e-6))
    }

    @Test func returnsToTheEdgeWithoutOvershoot() {
        let outward = SpringTrajectory(from: 0, velocity: -2500, target: 0)  // bounce at the top
        #expect(outward.displacements.allSatisfy { $0 <= 0 })
        let pulled = SpringTrajectory(from: 3900, velocity: 0, target: 3764)  // released past the bottom
        #expect(pulled.displacements.allSatisfy { $0 >= 0 })
        #expect(zip(pulled.displacements, pulled.displacements.dropFirst()).allSatisfy { $1 <= $0 })
        #expect(outward.offset(after: outward.duration) == 0)
        #expect(pulled.offset(after: pulled.duration + 5) == 3764)
        #expect(pulled.duration > 300 && pulled.duration < 2000)
    }

    @Test func interpolatesBetweenMillisecondSteps() {
        let spring = SpringTrajectory(from: 100, velocity: 0, target: 0)
        let a = spring.offset(after: 10), b = spring.offset(after: 11)
        #expect(approx(spring.offset(after: 10.25), a + (b - a) * 0.25))
    }

    @Test func flingIntoTheEdgeBouncesWithTheCrossingVelocity() throws {
        // From the resting top, fling towards the top: the decay crosses −44 at once... so instead
        // start 100 pt down and fling upwards fast.
        let range = -44.0...3764.0
        let plan = MotionPlan.release(from: 56, velocity: -3000, range: range, rate: 0.998, at: 1000, reducedMotion: false)
        #expect(plan.segments.count == 3)
        let decay = DecayMotion(start: 56, velocity: -3000, rate: 0.998)
        let crossing = try #require(decay.timeToReach(-44))
        #expect(approx(plan.segments[1].start, 1000 + crossing))
        #expect(plan.phase(at: 1000 + crossing - 1) == .decelerating)
        #expect(plan.phase(at: 1000 + crossing + 1) == .bouncing)
        // Continuous at the crossing, past the edge just after, back at the edge in the end.
        #expect(approx(plan.offset(at: 1000 + crossing), -44, 1e-9))
        #expect(plan.offset(at: 1000 + crossing + 20) < -44)
        #expect(plan.finalOffset == -44)
        // Spring entry velocity is the decay's velocity at the crossing.
        if case .spring(let spring) = plan.segments[1].curve {
            let entry = (spring.offset(after: 1) - spring.offset(after: 0)) * 1000
            let expected = decay.velocity(after: crossing)
            #expect(abs(entry - expected) < abs(expected) * 0.02)
        } else {
            Issue.record("second segment is not a spring")
        }
    }
}
