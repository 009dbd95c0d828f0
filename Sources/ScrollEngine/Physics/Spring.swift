/// The spring that pulls content back to an edge after a bounce or an over-pull.
///
/// Mass 1, stiffness 100, damping ratio 1 (critically damped: the fastest return with no
/// overshoot; these are the defaults UIKit-like engines such as facebook/pop and Rebound use
/// for scroll bounces). Natural frequency ω = √(stiffness / mass) = 10 rad/s.
///
/// The trajectory is stepped at a fixed 1 ms counted from the spring's start and stored as a
/// table when the spring starts (at input time), so a frame just interpolates: how often anyone
/// sampled cannot change the curve, and a frame costs O(1). Each step applies the exact
/// solution of the critically damped oscillator over 1 ms,
///
///     x(t) = (x0 + (v0 + ω·x0)·t)·e^(−ωt),  v(t) = (v0 − ω·(v0 + ω·x0)·t)·e^(−ωt),
///
/// rather than an Euler step, so the discrete curve never overshoots when the true one doesn't.
struct SpringTrajectory: Sendable, Hashable {
    /// Spring mass.
    static let mass: Double = 1
    /// Spring stiffness (N/m in the physical analogy; here 1/s² per unit mass).
    static let stiffness: Double = 100
    /// Step of the stored trajectory, ms.
    static let stepMilliseconds: Double = 1
    /// The spring counts as settled when it is this close to its target (pt) …
    static let restDistance: Double = 0.05
    /// … and this slow (pt/s).
    static let restSpeed: Double = 1
    /// Hard cap on the table length (ms); a critically damped spring from any sane start settles
    /// well within it.
    static let maximumSteps = 4000

    /// Where the spring comes to rest.
    let target: Double
    /// Where it started and how fast, pt/s: with `target` they rebuild the table bit for bit
    /// (the engine's state bytes carry these three, not the table).
    let startOffset: Double, startVelocity: Double
    /// Displacement from `target` at 0, 1, 2, … ms; the last entry is the first settled one.
    let displacements: [Double]

    /// Starts a spring at `offset` moving at `velocity` (pt/s) towards `target`.
    init(from offset: Double, velocity: Double, target: Double) {
        self.target = target
        self.startOffset = offset
        self.startVelocity = velocity
        let omega = (Self.stiffness / Self.mass).squareRoot()
        let dt = Self.stepMilliseconds / 1000
        let decay = EngineMath.exp(-omega * dt)
        var x = offset - target
        var v = velocity
        var table: [Double] = [x]
        table.reserveCapacity(256)
        while table.count < Self.maximumSteps && (abs(x) >= Self.restDistance || abs(v) >= Self.restSpeed) {
            // No damping constant appears: this closed form is the critically damped one (ζ = 1),
            // so other damping would need another formula, not another constant.
            let c = v + omega * x
            let nextX = (x + c * dt) * decay
            let nextV = (v - omega * c * dt) * decay
            x = nextX; v = nextV
            table.append(x)
        }
        table[table.count - 1] = 0
        displacements = table
    }

    /// Milliseconds from the start until the spring has settled on its target.
    var duration: Double { Double(displacements.count - 1) * Self.stepMilliseconds }

    /// Offset `ms` after the spring started (linear between the 1 ms steps).
    func offset(after ms: Double) -> Double {
        let position = ms / Self.stepMilliseconds
        guard position > 0 else { return target + displacements[0] }
        let last = displacements.count - 1
        guard position < Double(last) else { return target }
        let index = Int(position)
        let fraction = position - Double(index)
        let a = displacements[index], b = displacements[index + 1]
        return target + (a + (b - a) * fraction)
    }
}
