#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import ScrollEngine

/// The physics constants read back off the frames a scene draws, with the C library's math (not
/// the engine's own, EngineMath) doing the reading: UIKit's deceleration rates (0.998 and 0.99 of
/// the velocity kept per millisecond), Grant Paul's UIKit rubber-band coefficient 0.55, and the
/// bounce spring's natural frequency ω = 10 rad/s.
@Suite struct PhysicsConstantsFromFramesTests {
    /// After a fling, successive 1 ms displacements shrink by exactly the deceleration rate.
    @Test(arguments: [(DecelerationRate.normal, 0.998), (.fast, 0.99)])
    func decelerationRateFromFrames(rate: DecelerationRate, uikit: Double) throws {
        var configuration = plainConfiguration()
        configuration.decelerationRate = rate
        var s = Script(configuration)
        try s.send(0, .pointerDown(point(700)))
        for i in 1...6 { try s.send(Double(i) * 10, .pointerMoved(point(700 - Double(i) * 20))) }
        try s.send(70, .pointerUp(point(560)))  // released at +2000 pt/s
        for start in [90.0, 150, 250] {
            let x = (0...2).map { s.offset(start + Double($0)) }
            let ratio = (x[2] - x[1]) / (x[1] - x[0])
            #expect(abs(ratio - uikit) < 1e-9, "\(rate) at \(start) ms: \(ratio)")
        }
        // Where it comes to rest: x0 + v0 / (1000 · |ln rate|), the closed form's limit.
        let resting = 76 + 2000 / (1000 * -log(uikit))
        #expect(abs(s.offset(20_000) - resting) < 0.5)
    }

    /// Pulled 100 pt past the top of an 844 pt viewport, the content shows
    /// (1 − 1/(100·c/844 + 1))·844 of it: c = 0.55.
    @Test func rubberBandCoefficientFromFrames() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(300)))
        try s.send(10, .pointerMoved(point(320)))
        try s.send(20, .pointerMoved(point(420)))
        let shown = -44 - s.offset(20)
        let coefficient = (1 / (1 - shown / 844) - 1) * 844 / 100
        #expect(abs(coefficient - 0.55) < 1e-12, "\(coefficient)")
    }

    /// Released at rest past the top, the content returns as a critically damped spring,
    /// x(t) = x0·(1 + ωt)·e^(−ωt): solving for ω from the frames gives 10 rad/s.
    @Test func springFrequencyFromFrames() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(300)))
        try s.send(10, .pointerMoved(point(320)))
        try s.send(20, .pointerMoved(point(420)))
        try s.send(400, .pointerUp(point(420)))  // held still: released at 0 pt/s
        let x0 = s.offset(400) + 44
        #expect(x0 < -50)
        for t in [0.02, 0.1, 0.3] {
            let ratio = (s.offset(400 + t * 1000) + 44) / x0
            // (1 + ωt)·e^(−ωt) falls as ω grows: bisect.
            var low = 1.0, high = 100.0
            for _ in 0..<80 {
                let omega = (low + high) / 2
                if (1 + omega * t) * exp(-omega * t) > ratio { low = omega } else { high = omega }
            }
            #expect(abs(low - 10) < 1e-6, "ω at \(t) s: \(low)")
        }
    }
}
