/// An opacity that fades in when something starts, holds, and fades out a while after it ends:
/// the scroll indicator (in ~0.1 s, out ~0.3 s after scrolling stops, like UIScrollView's) and
/// Path 2's info panel (in ~0.2 s, lingers ~1 s after scrolling stops, out ~0.3 s;
/// info-panel-and-row-moving.txt).
///
/// Described from its last anchor, so alpha is a pure function of time:
/// alpha(t) = min(rise(t), fall(t)) with rise climbing from `anchorAlpha` at `anchorTime` and fall
/// dropping from 1 at `visibleUntil + linger`. Both are continuous, so re-anchoring mid-fade
/// never makes it jump.
struct Fade: Sendable, Hashable {
    /// ms to go from 0 to 1.
    let fadeIn: Double
    /// ms it stays fully visible after the activity ends.
    let linger: Double
    /// ms to go from 1 to 0.
    let fadeOut: Double
    private(set) var anchorTime: Double = -.infinity
    private(set) var anchorAlpha: Double = 0
    /// When the activity that shows it ends (+∞ while it goes on, −∞ before it ever started).
    private(set) var visibleUntil: Double = -.infinity

    init(fadeIn: Double, linger: Double, fadeOut: Double) {
        self.fadeIn = fadeIn; self.linger = linger; self.fadeOut = fadeOut
    }

    /// Opacity at `time`.
    func alpha(at time: Double) -> Double {
        guard visibleUntil > -.infinity else { return 0 }
        let rise = anchorAlpha + max(0, time - anchorTime) / fadeIn
        let fall = 1 - (time - visibleUntil - linger) / fadeOut
        return min(max(min(rise, fall), 0), 1)
    }

    /// Starts (or continues) showing at `time` for an activity that ends at `until`.
    mutating func show(at time: Double, until: Double) {
        // An activity that is already over does not bring back something invisible.
        if until <= time && alpha(at: time) == 0 { return }
        anchorAlpha = alpha(at: time)
        anchorTime = time
        visibleUntil = max(until, time)
    }

    /// Like `show`, but only if it is visible now: scrolling keeps a panel that a drag showed.
    mutating func extend(at time: Double, until: Double) {
        guard alpha(at: time) > 0 || visibleUntil == .infinity else { return }
        show(at: time, until: max(until, visibleUntil == .infinity ? until : visibleUntil))
    }

    /// The activity ends at `time` (earlier than planned): start lingering / fading out from now.
    mutating func endActivity(at time: Double) {
        guard visibleUntil > time else { return }
        show(at: time, until: time)
    }

    /// Puts the fade back at the anchors `anchors` read from it (the engine's state bytes).
    mutating func restore(anchorTime: Double, anchorAlpha: Double, visibleUntil: Double) {
        self.anchorTime = anchorTime; self.anchorAlpha = anchorAlpha; self.visibleUntil = visibleUntil
    }

    /// After this time the opacity no longer changes.
    var lastChange: Double {
        guard visibleUntil > -.infinity else { return -.infinity }
        let risen = anchorTime + (1 - anchorAlpha) * fadeIn
        guard visibleUntil < .infinity else { return risen }
        return max(risen, visibleUntil + linger + fadeOut)
    }
}
