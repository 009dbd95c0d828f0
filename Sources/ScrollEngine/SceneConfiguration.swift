/// One row of the table. Rows carry their own text so a frame can describe the visible
/// rows completely and a page never needs the whole table.
public struct TableRow: Sendable, Hashable {
    /// Stable identity: survives row moves, so clients can follow a row.
    public var id: Int
    public var title: String
    public var subtitle: String
    /// The group the info panel shows for this row (in the demo: its day, "Mon 3 Nov").
    public var group: String
    /// A finer label shown beside the group in the info panel (in the demo: "14:20").
    public var detail: String
    /// Row height in points; rows may differ.
    public var height: Double
    public init(id: Int, title: String, subtitle: String = "", group: String = "", detail: String = "", height: Double = 44) {
        self.id = id; self.title = title; self.subtitle = subtitle
        self.group = group; self.detail = detail; self.height = height
    }
}

/// A section: an optional header and its rows.
public struct TableSection: Sendable, Hashable {
    public var title: String
    /// Height of the section header; 0 for none.
    public var headerHeight: Double
    public var rows: [TableRow]
    public init(title: String, headerHeight: Double = 28, rows: [TableRow]) {
        self.title = title; self.headerHeight = headerHeight; self.rows = rows
    }
}

/// One image layer of the parallax header (parallax-header.txt). The seed's single image has
/// `restingY = -150`, `pullFactor = 1/3`, `scrollFactor = 1`; more layers with other factors give
/// the "multi-layer parallax" the seed suggests.
public struct ParallaxLayer: Sendable, Hashable {
    /// Asset name the page loads from `Public/` (e.g. "images/header-sky.svg").
    public var image: String
    /// Drawn size of the layer in points.
    public var size: Size
    /// y of the layer's top edge, relative to the top of the table header, at rest.
    public var restingY: Double
    /// Fraction of the overscroll the layer follows when pulled down (offset < 0).
    public var pullFactor: Double
    /// Fraction of the scroll the layer follows when scrolled up (offset > 0).
    public var scrollFactor: Double
    public init(image: String, size: Size, restingY: Double = -150, pullFactor: Double = 1.0 / 3.0, scrollFactor: Double = 1) {
        self.image = image; self.size = size; self.restingY = restingY
        self.pullFactor = pullFactor; self.scrollFactor = scrollFactor
    }
}

/// The long background image whose offset acts as a scroll indicator
/// (background-scroll-indicator*.txt).
public struct BackgroundImage: Sendable, Hashable {
    /// Asset name the page loads from `Public/`.
    public var image: String
    /// Height of the image (the background scroll view's content height) in points.
    public var height: Double
    public init(image: String, height: Double) { self.image = image; self.height = height }
}

/// `UIScrollView.DecelerationRate`: per-millisecond velocity retention.
public enum DecelerationRate: String, Sendable, Hashable, CaseIterable {
    /// 0.998, UIScrollView's default.
    case normal
    /// 0.99.
    case fast
    /// The per-millisecond factor (super-ultra/ScrollMechanics, "Scrolling mechanics of UIScrollView").
    public var value: Double {
        switch self {
        case .normal: return 0.998
        case .fast: return 0.99
        }
    }
}

/// Everything fixed about a scene when it is created; the row order is the only table state
/// that input changes afterwards.
public struct SceneConfiguration: Sendable, Hashable {
    /// The logical viewport (an iPhone by default).
    public var viewport: Size
    /// Content insets; the default top inset of 44 pt stands for a navigation bar
    /// (scroll-to-row-near-edges.txt).
    public var insets: EdgeInsets
    /// Height of the transparent table header through which the parallax layers show
    /// (180 pt in parallax-header.txt); 0 for none.
    public var headerHeight: Double
    public var parallaxLayers: [ParallaxLayer]
    public var background: BackgroundImage?
    public var sections: [TableSection]
    public var decelerationRate: DecelerationRate
    public init(
        viewport: Size = Size(width: 390, height: 844),
        insets: EdgeInsets = EdgeInsets(top: 44),
        headerHeight: Double = 180,
        parallaxLayers: [ParallaxLayer] = [],
        background: BackgroundImage? = nil,
        sections: [TableSection],
        decelerationRate: DecelerationRate = .normal
    ) {
        self.viewport = viewport; self.insets = insets; self.headerHeight = headerHeight
        self.parallaxLayers = parallaxLayers; self.background = background
        self.sections = sections; self.decelerationRate = decelerationRate
    }
}
