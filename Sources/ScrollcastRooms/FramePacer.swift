/// When a room's frames go out (docs/design.md, "Frame clock"). A value with no clock of its own:
/// the room tells it the time, and it says whether a frame is due.
///
/// While the scene animates, a frame every `framePeriod` (one that would show nothing new is
/// skipped: `frameSkipped`). After input, a frame at once unless one went out less than half a
/// period ago; then it goes out half a period after that one. So input never waits more than
/// half a period, frames are never closer than that, and a room exceeds its frame rate (up to
/// twice it) only while input arrives faster than the display rate.
public struct FramePacer: Sendable, Hashable {
    /// Why a frame goes out.
    public enum Reason: Sendable, Hashable {
        /// Input changed the scene.
        case input
        /// The scene moves on its own (momentum, bounce, animation).
        case animation
    }

    /// One frame at the room's frame rate, ms.
    public let framePeriod: Double
    /// Time of the last frame sent (−∞ before the first).
    public private(set) var lastFrameTime: Double = -.infinity
    /// When the next animation frame is due; advanced by whole periods so the average rate stays
    /// at the frame rate even though timers fire a little late.
    public private(set) var animationDue: Double = 0
    /// An input changed the scene and its frame has not gone out yet.
    public private(set) var inputFramePending = false

    /// Where the server's common frame grid falls on this room's clock: a room time of one of
    /// its points (nil: no common grid, the room's period counts from its own frames).
    public let gridPoint: Double?

    /// A pacer for frames `framePeriod` ms apart (at least 1 ms). With `gridPoint`, animation
    /// frames that (re)start after input or a pause fall on the grid of periods through it: every
    /// room of a server given the same grid (on the server's clock) is due at the same instants,
    /// so one timer wake-up ticks them all. Input frames still go out at once.
    public init(framePeriod: Double, gridPoint: Double? = nil) {
        self.framePeriod = max(1, framePeriod)
        self.gridPoint = gridPoint
    }

    /// When the animation grid restarts at `now`: one period on, or with a common grid its first
    /// point at least half a period on (so frames keep their minimum gap), a period on average.
    private func restartedDue(at now: Double) -> Double {
        guard let gridPoint else { return now + framePeriod }
        let earliest = now + minimumGap
        return gridPoint + ((earliest - gridPoint) / framePeriod).rounded(.up) * framePeriod
    }

    /// Frames are never closer than this, ms: half a period.
    public var minimumGap: Double { framePeriod / 2 }

    /// One timer serves every room, and timers fire on a whole-ms grid: a tick this early still
    /// counts as on time, so a frame due at 16.67 ms is not put off by a whole extra timer round
    /// for 0.3 ms. At most an eighth of a period, so a high frame rate keeps its spacing.
    public var timerSlack: Double { min(1, framePeriod / 8) }

    /// Input changed the scene at `now`. Returns true when its frame may go out at once;
    /// otherwise the frame waits for `nextDue`.
    public mutating func inputArrived(at now: Double) -> Bool {
        if now >= lastFrameTime + minimumGap { return true }
        inputFramePending = true
        return false
    }

    /// When the next frame is due, or nil when none is (no input waiting, scene at rest). Never
    /// within the minimum gap of the last frame: a late animation frame keeps the grid, so the
    /// next grid point can fall inside that gap, and a tick there would find nothing due and
    /// leave the deadline in the past (a timer firing again and again until the gap is over).
    public func nextDue(isAnimating: Bool) -> Double? {
        if inputFramePending { return lastFrameTime + minimumGap }
        return isAnimating ? max(animationDue, lastFrameTime + minimumGap) : nil
    }

    /// The frame due at `now` (a tick), or nil if none is due yet.
    public func frameDue(at now: Double, isAnimating: Bool) -> Reason? {
        let ready = now >= lastFrameTime + minimumGap - timerSlack
        guard ready else { return nil }
        if inputFramePending { return .input }
        if isAnimating, now >= animationDue - timerSlack { return .animation }
        return nil
    }

    /// A frame went out at `now` for `reason`.
    public mutating func frameSent(at now: Double, for reason: Reason) {
        // An animation frame keeps the period's grid (so late timers do not lower the average
        // rate) unless the room fell a whole period behind; a frame for input restarts the grid
        // from itself, so the next animation frame is a full period after it.
        let keepsGrid = reason == .animation && now < animationDue + framePeriod
        animationDue = keepsGrid ? animationDue + framePeriod : restartedDue(at: now)
        lastFrameTime = now
        inputFramePending = false
    }

    /// The animation frame due at `now` would have shown nothing new (docs/protocol.md, `frame`:
    /// a still picture is not sent again), so none went out. The grid moves on to the next
    /// period, but the half-period gap an input's frame keeps still counts from the last frame
    /// actually sent: skipping never delays input.
    public mutating func frameSkipped(at now: Double) {
        animationDue = now < animationDue + framePeriod ? animationDue + framePeriod : restartedDue(at: now)
    }
}
