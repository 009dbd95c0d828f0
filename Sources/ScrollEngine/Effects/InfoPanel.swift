/// info-panel-and-row-moving.txt (Path 2): the panel sits left of the indicator, centred on it; while the indicator
/// shrinks at an edge it stays centred while indicator.height > panel.height + 2, and once smaller it stays fully on
/// screen (bottom edge case: bottom-aligned with the indicator; top edge: top-aligned). Alpha is the physics helper's.
///
/// In Path 2 the panel's layer is a sublayer of the scroll indicator's, so it rides along with the
/// indicator for free; it appears when dragging begins and fades out about a second after scrolling
/// ends. It names the part of the table under the indicator (in Path, the day), giving a temporary
/// grouping that needs no section headers.
public enum InfoPanel {
    /// The panel's size (matches the example frame in docs/protocol.md).
    public static let size = Size(width: 88, height: 48)
    /// Space between the panel's right edge and the indicator's left edge.
    public static let gap: Double = 6

    /// The panel's rect in viewport coordinates for an indicator at `indicator` whose length with no
    /// overscroll is `restingIndicatorLength`.
    ///
    /// Follows the seed's `scrollViewDidScroll:`: centred on the indicator; when the indicator is
    /// shorter than at rest (an edge) and no longer taller than the panel + 2 pt, the panel is
    /// bottom-aligned with it in the lower half of the screen (the seed's `origin.y > 0` case) and
    /// top-aligned in the upper half. Finally the panel is kept between the insets when it fits there,
    /// so a bar never covers it.
    public static func rect(indicator: Rect, restingIndicatorLength: Double, viewport: Size, insets: EdgeInsets) -> Rect {
        let x = indicator.minX - gap - size.width
        var y = indicator.midY - size.height / 2
        let shrunk = indicator.height < restingIndicatorLength
        if shrunk && !(indicator.height > size.height + 2) {
            let visibleMid = (insets.top + viewport.height - insets.bottom) / 2
            y = indicator.midY > visibleMid ? indicator.maxY - size.height : indicator.minY
        }
        let lowest = viewport.height - insets.bottom - size.height
        if lowest >= insets.top { y = min(max(y, insets.top), lowest) }
        return Rect(x: x, y: y, width: size.width, height: size.height)
    }

    /// Group and detail of the row under the indicator's centre (indicator centre mapped proportionally into content).
    ///
    /// The centre's fraction of the way down the track, times the content height, is the content y of
    /// the middle of the visible area (exactly, while the indicator is longer than its minimum), so the
    /// panel names the rows the user is looking at. Empty strings when the table has no rows.
    public static func text(layout: TableLayout, indicator: Rect, viewport: Size, insets: EdgeInsets) -> (title: String, detail: String) {
        let track = ScrollIndicator.trackLength(viewport: viewport, insets: insets)
        let trackTop = insets.top + ScrollIndicator.trackInset
        var fraction = track > 0 ? (indicator.midY - trackTop) / track : 0
        fraction = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        guard let path = layout.indexPath(atContentY: fraction * layout.contentHeight) else { return ("", "") }
        let row = layout.row(at: path)
        return (row.group, row.detail)
    }
}
