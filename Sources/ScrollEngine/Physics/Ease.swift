/// An animated scroll-to (keys, wheel notches, `scrollToRow(animated: true)`): ease-in-out from
/// one offset to another, like `setContentOffset(_:animated:)`.
///
/// The curve is the cubic smoothstep 3p² − 2p³: zero speed at both ends and symmetric, like
/// Core Animation's ease-in-out, but solvable without iteration.
struct EaseMotion: Sendable, Hashable {
    /// UIKit's animated scrolls take about 0.3 s.
    static let standardDuration: Double = 300

    var from: Double
    var to: Double
    /// ms.
    var duration: Double

    /// Offset `ms` after the animation started.
    func offset(after ms: Double) -> Double {
        guard duration > 0 else { return to }
        let p = min(max(ms / duration, 0), 1)
        return from + (to - from) * Self.curve(p)
    }

    /// Smoothstep ease-in-out of progress `p` in 0…1.
    static func curve(_ p: Double) -> Double {
        p * p * (3 - 2 * p)
    }
}
