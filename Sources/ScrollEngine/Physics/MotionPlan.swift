/// One piece of the content offset's path through time.
enum MotionCurve: Sendable, Hashable {
    /// Stays put (at rest, or under a finger that is not moving).
    case hold(Double)
    /// Fling momentum (`DecayMotion`).
    case decay(DecayMotion)
    /// Spring back to an edge (`SpringTrajectory`).
    case spring(SpringTrajectory)
    /// Animated scroll-to (`EaseMotion`).
    case ease(EaseMotion)
    /// Constant speed, pt/s (autoscroll while a lifted row is held near an edge).
    case linear(from: Double, velocity: Double)

    /// Offset `ms` after the piece began.
    func offset(after ms: Double) -> Double {
        switch self {
        case .hold(let offset): return offset
        case .decay(let decay): return decay.offset(after: ms)
        case .spring(let spring): return spring.offset(after: ms)
        case .ease(let ease): return ease.offset(after: ms)
        case .linear(let from, let velocity): return from + velocity * ms / 1000
        }
    }
}

/// A piece of motion, where it begins on the scene clock and the phase it shows.
struct MotionSegment: Sendable, Hashable {
    var start: Double
    var curve: MotionCurve
    var phase: ScrollPhase
}

/// The content offset as a function of time, worked out completely when an input arrives
/// (for example: decay, then a spring at the analytically found edge-crossing time, then rest).
/// A frame only evaluates it, so frames never depend on how often anyone looked before.
/// The last segment is always a hold.
struct MotionPlan: Sendable, Hashable {
    private(set) var segments: [MotionSegment]

    init(_ segments: [MotionSegment]) {
        precondition(!segments.isEmpty)
        self.segments = segments
    }

    /// At rest at `offset` from `time`.
    static func rest(_ offset: Double, at time: Double) -> MotionPlan {
        MotionPlan([MotionSegment(start: time, curve: .hold(offset), phase: .idle)])
    }

    /// Held under a finger (or a trackpad stream) at `offset`.
    static func tracking(_ offset: Double, at time: Double) -> MotionPlan {
        MotionPlan([MotionSegment(start: time, curve: .hold(offset), phase: .tracking)])
    }

    /// The segment in force at `time` (the first one for times before the plan began).
    func segment(at time: Double) -> MotionSegment {
        var index = segments.count - 1
        while index > 0 && segments[index].start > time { index -= 1 }
        return segments[index]
    }

    func offset(at time: Double) -> Double {
        let piece = segment(at: time)
        return piece.curve.offset(after: max(0, time - piece.start))
    }

    func phase(at time: Double) -> ScrollPhase { segment(at: time).phase }

    /// After this time neither offset nor phase changes.
    var lastChange: Double { segments[segments.count - 1].start }

    /// Where the plan ends up.
    var finalOffset: Double { segments[segments.count - 1].curve.offset(after: 0) }

    /// When the content comes to rest (the final hold is idle), or +∞ while something holds it.
    var restTime: Double {
        let last = segments[segments.count - 1]
        return last.phase == .idle ? last.start : .infinity
    }

    /// This plan followed by `later`, whose segments start later.
    func then(_ later: MotionPlan) -> MotionPlan { MotionPlan(segments + later.segments) }
}

extension MotionPlan {
    /// Natural frequency of the bounce spring (rad/s), √(stiffness/mass).
    private static var springOmega: Double { (SpringTrajectory.stiffness / SpringTrajectory.mass).squareRoot() }

    /// Springs from `offset` (past an edge) back to `edge`. An inward velocity larger than the
    /// critical one (ω · distance) would overshoot the edge and bounce at the other side of it;
    /// it is capped there so the content settles on the edge, as UIScrollView's does.
    static func springBack(from offset: Double, velocity: Double, to edge: Double, at time: Double,
                           reducedMotion: Bool) -> MotionPlan {
        guard !reducedMotion, offset != edge || velocity != 0 else { return .rest(edge, at: time) }
        let displacement = offset - edge
        var v = velocity
        if v * displacement < 0 && abs(v) > springOmega * abs(displacement) {
            v = -springOmega * displacement
        }
        let spring = SpringTrajectory(from: offset, velocity: v, target: edge)
        return MotionPlan([
            MotionSegment(start: time, curve: .spring(spring), phase: .bouncing),
            MotionSegment(start: time + spring.duration, curve: .hold(edge), phase: .idle),
        ])
    }

    /// What happens when the finger lets go at `offset` moving at `velocity` (pt/s, offset units):
    /// spring back if past an edge; otherwise decay, and if the decay would carry the content past
    /// an edge, switch at the crossing moment into the bounce spring with the velocity it has then.
    static func release(from offset: Double, velocity: Double, range: ClosedRange<Double>,
                        rate: Double, at time: Double, reducedMotion: Bool) -> MotionPlan {
        if offset < range.lowerBound || offset > range.upperBound {
            let edge = offset < range.lowerBound ? range.lowerBound : range.upperBound
            return springBack(from: offset, velocity: velocity, to: edge, at: time, reducedMotion: reducedMotion)
        }
        // Reduced motion: no momentum on release.
        guard !reducedMotion, abs(velocity) > DecayMotion.stopSpeed else { return .rest(offset, at: time) }
        let decay = DecayMotion(start: offset, velocity: velocity, rate: rate)
        let duration = decay.duration
        let edge = velocity > 0 ? range.upperBound : range.lowerBound
        if let crossing = decay.timeToReach(edge), crossing < duration {
            let bounceStart = time + crossing
            let bounce = springBack(from: edge, velocity: decay.velocity(after: crossing), to: edge,
                                    at: bounceStart, reducedMotion: false)
            return MotionPlan([MotionSegment(start: time, curve: .decay(decay), phase: .decelerating)]).then(bounce)
        }
        return MotionPlan([
            MotionSegment(start: time, curve: .decay(decay), phase: .decelerating),
            MotionSegment(start: time + duration, curve: .hold(decay.offset(after: duration)), phase: .idle),
        ])
    }

    /// Animated scroll from `from` to `to` (ease-in-out, ~0.3 s); instant under reduced motion.
    static func animate(from: Double, to: Double, at time: Double, reducedMotion: Bool) -> MotionPlan {
        guard !reducedMotion, from != to else { return .rest(to, at: time) }
        let ease = EaseMotion(from: from, to: to, duration: EaseMotion.standardDuration)
        return MotionPlan([
            MotionSegment(start: time, curve: .ease(ease), phase: .animating),
            MotionSegment(start: time + ease.duration, curve: .hold(to), phase: .idle),
        ])
    }

    /// Autoscroll at a constant `velocity` (pt/s) from `offset`, stopping at the end of `range`.
    /// Constant between inputs, so the offset is linear in time.
    static func autoscroll(from offset: Double, velocity: Double, range: ClosedRange<Double>,
                           at time: Double) -> MotionPlan {
        let edge = velocity > 0 ? range.upperBound : range.lowerBound
        let distance = edge - offset
        guard velocity != 0, distance * velocity > 0 else { return .tracking(offset, at: time) }
        let duration = distance / velocity * 1000
        return MotionPlan([
            MotionSegment(start: time, curve: .linear(from: offset, velocity: velocity), phase: .tracking),
            MotionSegment(start: time + duration, curve: .hold(edge), phase: .tracking),
        ])
    }
}
