/// What the scroll view is doing, as UIScrollView's states.
public enum ScrollPhase: String, Sendable, Hashable {
    /// Nothing moves.
    case idle
    /// A finger (or pointer, or trackpad stream) is on the content.
    case tracking
    /// Momentum after a fling.
    case decelerating
    /// Springing back from past an edge.
    case bouncing
    /// An ease-in-out scroll-to (rows, keys, wheel notches).
    case animating
}

/// A row as the page draws it. `y` is in viewport coordinates.
public struct VisibleRow: Sendable, Hashable {
    public var indexPath: IndexPath
    public var id: Int
    public var y: Double
    public var height: Double
    public var title: String
    public var subtitle: String
    public var detail: String
    public init(indexPath: IndexPath, id: Int, y: Double, height: Double, title: String, subtitle: String, detail: String) {
        self.indexPath = indexPath; self.id = id; self.y = y; self.height = height
        self.title = title; self.subtitle = subtitle; self.detail = detail
    }
}

/// A section header on screen (pinned to the top inset while its section scrolls past, as a
/// plain-style UITableView does). `y` is in viewport coordinates.
public struct VisibleSectionHeader: Sendable, Hashable {
    public var section: Int
    public var y: Double
    public var height: Double
    public var title: String
    public init(section: Int, y: Double, height: Double, title: String) {
        self.section = section; self.y = y; self.height = height; self.title = title
    }
}

/// Where a parallax layer is drawn: its top edge in viewport coordinates.
public struct LayerPosition: Sendable, Hashable {
    public var index: Int
    public var y: Double
    public init(index: Int, y: Double) { self.index = index; self.y = y }
}

/// The scroll indicator (viewport coordinates).
public struct IndicatorState: Sendable, Hashable {
    public var rect: Rect
    public var alpha: Double
    public init(rect: Rect, alpha: Double) { self.rect = rect; self.alpha = alpha }
}

/// Path 2's info panel attached to the indicator (info-panel-and-row-moving.txt).
public struct InfoPanelState: Sendable, Hashable {
    public var rect: Rect
    public var alpha: Double
    /// The group of the row under the indicator's centre (the day, in the demo).
    public var title: String
    /// Its finer label (the time, in the demo).
    public var detail: String
    public init(rect: Rect, alpha: Double, title: String, detail: String) {
        self.rect = rect; self.alpha = alpha; self.title = title; self.detail = detail
    }
}

/// A row lifted by tap-and-hold, following the finger (or settling into place after release).
public struct LiftedRowState: Sendable, Hashable {
    /// The row's content; its `y` is where the snapshot is drawn now (viewport coordinates).
    public var row: VisibleRow
    /// 0…1: how lifted it looks (scale and shadow grow with it; falls to 0 as it settles).
    public var lift: Double
    /// True while it animates into its final place after release or cancel.
    public var isSettling: Bool
    public init(row: VisibleRow, lift: Double, isSettling: Bool) {
        self.row = row; self.lift = lift; self.isSettling = isSettling
    }
}

/// The gap left where the lifted row will land.
public struct PlaceholderState: Sendable, Hashable {
    public var indexPath: IndexPath
    public var y: Double
    public var height: Double
    public init(indexPath: IndexPath, y: Double, height: Double) {
        self.indexPath = indexPath; self.y = y; self.height = height
    }
}

/// Everything a page needs to draw one moment of the scene, and nothing it must compute.
/// All positions are in viewport coordinates (logical pt) unless named otherwise.
public struct EffectFrame: Sendable, Hashable {
    /// Stamped by whoever sends frames (the server); the engine leaves it 0.
    public var sequence: UInt64
    /// Scene clock time of this frame, ms.
    public var time: Double
    /// Id of the last input the engine applied, if any.
    public var lastInputID: UInt64?
    public var phase: ScrollPhase
    /// False when nothing changes with time alone: a sender may stop sending until the next input.
    public var isAnimating: Bool
    public var viewport: Size
    public var insets: EdgeInsets
    /// `UIScrollView.contentOffset.y`; `-insets.top` at the top.
    public var contentOffset: Double
    public var contentHeight: Double
    public var rows: [VisibleRow]
    public var sectionHeaders: [VisibleSectionHeader]
    /// Background scroll view's contentOffset.y (background-scroll-indicator*.txt); the page draws
    /// the background image at y = -backgroundOffset.
    public var backgroundOffset: Double
    public var parallaxLayers: [LayerPosition]
    public var indicator: IndicatorState
    public var infoPanel: InfoPanelState?
    public var liftedRow: LiftedRowState?
    public var placeholder: PlaceholderState?
    public init(
        sequence: UInt64 = 0, time: Double, lastInputID: UInt64?, phase: ScrollPhase, isAnimating: Bool,
        viewport: Size, insets: EdgeInsets, contentOffset: Double, contentHeight: Double,
        rows: [VisibleRow], sectionHeaders: [VisibleSectionHeader], backgroundOffset: Double,
        parallaxLayers: [LayerPosition], indicator: IndicatorState, infoPanel: InfoPanelState?,
        liftedRow: LiftedRowState?, placeholder: PlaceholderState?
    ) {
        self.sequence = sequence; self.time = time; self.lastInputID = lastInputID; self.phase = phase
        self.isAnimating = isAnimating; self.viewport = viewport; self.insets = insets
        self.contentOffset = contentOffset; self.contentHeight = contentHeight; self.rows = rows
        self.sectionHeaders = sectionHeaders; self.backgroundOffset = backgroundOffset
        self.parallaxLayers = parallaxLayers; self.indicator = indicator; self.infoPanel = infoPanel
        self.liftedRow = liftedRow; self.placeholder = placeholder
    }
}
