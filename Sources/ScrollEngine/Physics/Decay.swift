/// Momentum after a fling, as UIScrollView decelerates: the velocity is multiplied by
/// `rate` every millisecond (`DecelerationRate.value`, 0.998 normal / 0.99 fast).
///
/// Integrating v(t) = v0 · rate^t gives the closed form used here (super-ultra/ScrollMechanics,
/// "Scrolling mechanics of UIScrollView"; facebook/pop's POPDecayAnimation uses the same model):
///
///     x(t) = x0 + v0 · (rate^t − 1) / (1000 · ln rate)      t in ms, v0 in pt/s
///     resting point = x0 − v0 / (1000 · ln rate)
///
/// Because the motion is a formula of the time since release, any frame can be evaluated
/// directly: sampling often or rarely cannot change where the content is.
struct DecayMotion: Sendable, Hashable {
    /// Offset at release.
    var start: Double
    /// Velocity at release, pt/s (positive: content offset grows, i.e. the list moves up).
    var velocity: Double
    /// Per-millisecond velocity retention (0 < rate < 1).
    var rate: Double

    /// Speed below which the motion is considered finished, pt/s. As pop's decay animation does,
    /// the motion stops once it is this slow; with rate 0.998 the distance still to go at that
    /// moment is under half a point (1 / (1000 · |ln 0.998|) ≈ 0.5 pt), so stopping is invisible.
    static let stopSpeed: Double = 1

    /// 1000 · ln(rate): the denominator of the closed form, negative.
    private var scaledLogRate: Double { 1000 * EngineMath.log(rate) }

    /// Offset `ms` milliseconds after release (not clamped to `duration`).
    func offset(after ms: Double) -> Double {
        start + velocity * (EngineMath.pow(rate, ms) - 1) / scaledLogRate
    }

    /// Velocity (pt/s) `ms` milliseconds after release.
    func velocity(after ms: Double) -> Double {
        velocity * EngineMath.pow(rate, ms)
    }

    /// Where the motion would come to rest after infinite time: x0 − v0 / (1000 · ln rate).
    var restingOffset: Double { start - velocity / scaledLogRate }

    /// Milliseconds until the speed falls below `stopSpeed` (0 when it already is).
    var duration: Double {
        let speed = abs(velocity)
        guard speed > Self.stopSpeed else { return 0 }
        return EngineMath.log(Self.stopSpeed / speed) / EngineMath.log(rate)
    }

    /// The time (ms after release) at which the offset reaches `edge`, or nil if it never does.
    /// Solving x(t) = edge: rate^t = 1 + (edge − x0) · 1000 · ln(rate) / v0.
    func timeToReach(_ edge: Double) -> Double? {
        guard velocity != 0 else { return edge == start ? 0 : nil }
        let argument = 1 + (edge - start) * scaledLogRate / velocity
        guard argument > 0, argument <= 1 else { return nil }
        return EngineMath.log(argument) / EngineMath.log(rate)
    }
}
