/// One room's table: configuration, row order and scroll state. A value type advanced only by
/// `apply(_:)`; `frame(at:)` is a pure function of that state and the time asked for.
///
/// NOTE: first cut — drags move the content 1:1 with no physics. The full engine replaces this.
public struct ScrollScene: Sendable {
    public private(set) var configuration: SceneConfiguration
    /// The current row order (sections with their rows).
    public var sections: [TableSection] { configuration.sections }
    private var offset: Double
    private var lastTime: Double = 0
    private var lastInputID: UInt64?
    private var dragAnchor: (pointerY: Double, offset: Double)?

    public init(configuration: SceneConfiguration) {
        self.configuration = configuration
        self.offset = -configuration.insets.top
    }

    /// Applies one input. Throws, leaving the scene unchanged, when the input is invalid.
    public mutating func apply(_ event: InputEvent) throws(InputRejection) -> [SceneChange] {
        guard event.time.isFinite else { throw .notFinite(field: "time") }
        guard event.time >= lastTime else { throw .timeWentBackwards(previous: lastTime, got: event.time) }
        switch event.kind {
        case .pointerDown(let p): dragAnchor = (p.y, offset)
        case .pointerMoved(let p):
            if let a = dragAnchor { offset = a.offset - (p.y - a.pointerY) }
        case .pointerUp, .pointerCancelled: dragAnchor = nil
        default: break
        }
        lastTime = event.time
        lastInputID = event.id
        return []
    }

    /// The frame at `time` (ms on the scene clock).
    public func frame(at time: Double) -> EffectFrame {
        var rows: [VisibleRow] = []
        var headers: [VisibleSectionHeader] = []
        var y = configuration.headerHeight - offset
        for (s, section) in configuration.sections.enumerated() {
            if section.headerHeight > 0, y + section.headerHeight > 0, y < configuration.viewport.height {
                headers.append(VisibleSectionHeader(section: s, y: y, height: section.headerHeight, title: section.title))
            }
            y += section.headerHeight
            for (r, row) in section.rows.enumerated() {
                if y + row.height > 0 && y < configuration.viewport.height {
                    rows.append(VisibleRow(indexPath: IndexPath(section: s, row: r), id: row.id, y: y, height: row.height,
                                           title: row.title, subtitle: row.subtitle, detail: row.detail))
                }
                y += row.height
            }
        }
        let contentHeight = y + offset
        return EffectFrame(
            time: time, lastInputID: lastInputID, phase: dragAnchor == nil ? .idle : .tracking, isAnimating: false,
            viewport: configuration.viewport, insets: configuration.insets, contentOffset: offset,
            contentHeight: contentHeight, rows: rows, sectionHeaders: headers, backgroundOffset: 0,
            parallaxLayers: configuration.parallaxLayers.indices.map { LayerPosition(index: $0, y: configuration.parallaxLayers[$0].restingY - offset) },
            indicator: IndicatorState(rect: Rect(x: configuration.viewport.width - 6, y: configuration.insets.top, width: 3, height: 36), alpha: 0),
            infoPanel: nil, liftedRow: nil, placeholder: nil)
    }
}
