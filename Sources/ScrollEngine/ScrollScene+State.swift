/// Which kind of input owns the current gesture (pointer events and explicit long-press events
/// must not be mixed within one gesture).
enum GestureSource: String, Sendable, Hashable {
    case pointer, longPress
}

/// What a finger (pointer or long press) is doing to the scene.
enum Gesture: Sendable, Hashable {
    case none
    /// Pointer down, not yet moved beyond the slop: it will lift a row if held long enough.
    case pressed(PendingPress)
    /// Pointer moved beyond the slop: the content follows it.
    case dragging(Drag)
    /// A row is lifted and follows the finger.
    case lifted(LiftedRow)
    /// An explicit long press that began over no row: its events are accepted and do nothing.
    case longPressOverNothing

    var source: GestureSource? {
        switch self {
        case .none: return nil
        case .pressed, .dragging: return .pointer
        case .lifted(let lifted): return lifted.source
        case .longPressOverNothing: return .longPress
        }
    }
}

/// A pointer that went down and has not yet become a drag or a lift.
struct PendingPress: Sendable, Hashable {
    var downTime: Double
    var downPoint: Point
    var lastPoint: Point
    /// The offset the content was caught at.
    var heldOffset: Double
    /// False once the hold expired over no row (the pointer can still drag).
    var canLift: Bool
    var velocity: VelocityEstimator
}

/// The content following a finger.
struct Drag: Sendable, Hashable {
    /// Finger y (viewport) when the drag began.
    var anchorY: Double
    /// Unconstrained offset when the drag began (see `RubberBand.raw`).
    var anchorRaw: Double
    /// Unconstrained offset now: where the content would be with no edges.
    var raw: Double
    var velocity: VelocityEstimator
}

/// A row lifted by tap-and-hold (info-panel-and-row-moving.txt, the Clear-style move).
struct LiftedRow: Sendable, Hashable {
    var row: TableRow
    /// Where the row was when lifted.
    var from: IndexPath
    /// Finger y minus the snapshot's top (viewport), kept while the finger moves.
    var grabOffset: Double
    var fingerY: Double
    var liftTime: Double
    var source: GestureSource
    /// The placeholder's index path as of the last input, and the layout with the row moved
    /// there (nil when it is `from`): frames reuse it instead of re-laying out 10,000 rows.
    var cachedDestination: IndexPath
    var cachedLayout: TableLayout?
}

/// A dropped or cancelled row's snapshot animating into its final place.
struct RowSettle: Sendable, Hashable {
    var row: TableRow
    var indexPath: IndexPath
    /// Snapshot top (viewport) when released.
    var fromY: Double
    /// Final row top, content coordinates (so it lands right even if the content then moves).
    var toContentY: Double
    var fromLift: Double
    var start: Double
    var duration: Double
    var end: Double { start + duration }
}

/// A trackpad's stream of small pixel wheel deltas.
struct WheelStream: Sendable, Hashable {
    /// Unconstrained offset the stream has reached (rubber-banded for display past the edges).
    var raw: Double
    var lastTime: Double
}

extension ScrollScene {
    /// A pointer counts as a *held* press (rather than a drag) within this distance: `RowMoving.slop`.
    static var holdSlop: Double { RowMoving.slop }
    /// ms for a lifted row to rise (lift 0 → 1).
    static let liftDuration: Double = 150
    /// A trackpad stream has ended when no wheel event came for this long (ms); then the content
    /// settles (springs back if past an edge). Decided from event timestamps only.
    static let wheelStreamGap: Double = 120
    /// Distance of one arrow key or one wheel line, pt.
    static let lineDistance: Double = 40
    /// Overlap kept between pages on pageUp/pageDown/space, pt (like browsers: a line of context).
    static let pageOverlap: Double = 40
    /// A pixel-mode wheel delta this large and whole is taken as a mouse-wheel notch (see `wheel`).
    static let notchMinimumPixels: Double = 50

    /// When a held pointer will lift its row, if it still can.
    var pendingLiftTime: Double? {
        guard case .pressed(let press) = gesture, press.canLift else { return nil }
        return press.downTime + RowMoving.liftDelay
    }

    /// One page: the viewport between the insets less a line of overlap.
    var pageDistance: Double {
        let c = configuration
        return max(Self.lineDistance, c.viewport.height - c.insets.top - c.insets.bottom - Self.pageOverlap)
    }
}
