/// One room's table: configuration, row order and scroll state, behaving like a `UITableView`
/// inside its `UIScrollView` (momentum, rubber band, bounce, animated scrolls, tap-and-hold row
/// moving, Path 2's info panel, parallax header, background scroll indicator).
///
/// A value type advanced only by `apply(_:)` with explicit, timestamped inputs. It never reads a
/// clock or a random source: every motion is described analytically from its start when the
/// input arrives, and `frame(at:)` evaluates it, so the same inputs give the same frames bit for
/// bit, however often (or rarely) anyone asked for frames in between.
public struct ScrollScene: Sendable {
    /// The scene's configuration; `sections` changes as rows are moved, `viewport` on resize.
    // internal(set) rather than private(set) so the ScrollScene+*.swift extensions can update it;
    // outside the module it reads exactly like private(set).
    public internal(set) var configuration: SceneConfiguration
    /// The current row order (sections with their rows).
    public var sections: [TableSection] { configuration.sections }

    var layout: TableLayout
    var reducedMotion = false
    var lastTime = -Double.infinity
    var lastInputID: UInt64?
    /// Where the content is going, from the last input on.
    var motion: MotionPlan
    var gesture: Gesture = .none
    /// A dropped (or cancelled) row's snapshot animating into its place.
    var settle: RowSettle?
    /// An unfinished trackpad stream (small pixel wheel deltas).
    var wheelStream: WheelStream?
    /// Target of the running animated scroll, which the next notch or key press adds to.
    var scrollTarget: Double?
    /// UIScrollView's indicator: in ~0.1 s when scrolling starts, out over ~0.3 s when it ends.
    var indicatorFade = Fade(fadeIn: 100, linger: 0, fadeOut: 300)
    /// Path 2's info panel (info-panel-and-row-moving.txt): in over ~0.2 s when a drag begins,
    /// kept about a second after scrolling stops, then out over ~0.3 s.
    var panelFade = Fade(fadeIn: 200, linger: 1000, fadeOut: 300)

    /// A scene at rest at the top of its table (`contentOffset = −insets.top`).
    public init(configuration: SceneConfiguration) {
        self.init(configuration: configuration,
                  layout: TableLayout(sections: configuration.sections, tableHeaderHeight: configuration.headerHeight))
    }

    /// A fresh scene of `configuration` whose layout is already computed.
    private init(configuration: SceneConfiguration, layout: TableLayout) {
        self.configuration = configuration
        self.layout = layout
        self.motion = .rest(-configuration.insets.top, at: 0)
    }

    /// A fresh scene of this scene's configuration (its current row order and viewport), at rest
    /// at `offset` (clamped, as `init(configuration:restingAt:)` does; nil or non-finite: the
    /// top): the very scene those initialisers give, nothing of this one's motion or gestures
    /// kept. It shares this scene's rows and layout storage instead of computing them again, so a
    /// host running many scenes of one configuration (rooms of one catalogue scene) holds and
    /// walks one copy of them until a scene moves a row.
    public func fresh(restingAt offset: Double? = nil) -> ScrollScene {
        var scene = ScrollScene(configuration: configuration, layout: layout)
        if let offset { scene.rest(at: offset) }
        return scene
    }

    /// A scene at rest with its content offset at `offset`, clamped to the table's offset range
    /// (a table that got shorter, or a viewport that grew, cannot leave the content past its
    /// edge). This is how a room comes back where it stopped: nothing moves, no indicator shows,
    /// and the first frame is taken at this offset. A non-finite `offset` is the top.
    public init(configuration: SceneConfiguration, restingAt offset: Double) {
        self.init(configuration: configuration)
        rest(at: offset)
    }

    /// Puts a fresh scene's content at rest at `offset`, clamped to the offset range; a
    /// non-finite `offset` leaves it at the top.
    private mutating func rest(at offset: Double) {
        guard offset.isFinite else { return }
        motion = .rest(clampedToRange(offset), at: 0)
    }

    /// Applies one input and returns the persistent changes it made (a committed row move).
    ///
    /// Throws, leaving the scene unchanged, on invalid input: time going backwards, non-finite
    /// numbers, a row out of range, a bad size, or an unexpected sequence (e.g. `pointerMoved` with
    /// no pointer down, `pointerDown` while one is already down, long-press and pointer events mixed).
    public mutating func apply(_ event: InputEvent) throws(InputRejection) -> [SceneChange] {
        // Every refusal is found by `validate`, before anything changes; `handle` cannot throw, so
        // the scene changes in place rather than on a copy of itself made for every input.
        try validate(event)
        fireDueTimers(upTo: event.time)
        let changes = handle(event.kind, at: event.time)
        lastTime = event.time
        lastInputID = event.id
        return changes
    }

    /// The frame at `time` (ms on the scene clock). Pure: the same state and time always give a
    /// bit-identical frame. A non-finite time is read as the time of the last input.
    public func frame(at time: Double) -> EffectFrame {
        let t = time.isFinite ? time : (lastTime.isFinite ? lastTime : 0)
        if let due = pendingLiftTime, due <= t {
            // The held pointer lifted its row at `due`; show it as `apply` will record it.
            var lifted = self
            lifted.fireDueTimers(upTo: t)
            return lifted.render(at: t)
        }
        return render(at: t)
    }

    // MARK: - Shared helpers

    /// The allowed offset range, [−insets.top, max(−insets.top, contentHeight − H + insets.bottom)].
    var offsetRange: ClosedRange<Double> {
        ScrollToRow.offsetRange(viewportHeight: configuration.viewport.height, insets: configuration.insets,
                                contentHeight: layout.contentHeight)
    }

    func clampedToRange(_ offset: Double) -> Double {
        let range = offsetRange
        return min(max(offset, range.lowerBound), range.upperBound)
    }

    /// Shows the indicator for scrolling from `time` until `until`, and keeps a visible info panel.
    mutating func noteScrolling(at time: Double, until: Double) {
        indicatorFade.show(at: time, until: until)
        panelFade.extend(at: time, until: until)
    }
}
