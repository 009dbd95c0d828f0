/// UIScrollView's vertical indicator: track between the insets (less a small margin), length = track × visible/content,
/// minimum 36 pt, shrinking by the overscroll distance when past an edge down to a ~8 pt dot; ~3 pt thick, inset ~3 pt
/// from the right edge. Alpha is NOT here (the physics helper fades it in/out with time).
///
/// info-panel-and-row-moving.txt describes the real indicator: an image view that is always there
/// (alpha 0 until you scroll) and that, when you drag past the top or bottom like a rubber band,
/// shrinks until it becomes a dot. The info panel hangs off it.
public enum ScrollIndicator {
    /// Width of the indicator bar.
    public static let thickness: Double = 3
    /// Space between the bar and the viewport's right edge (inside `insets.right`).
    public static let edgeInset: Double = 3
    /// The bar never gets shorter than this while the content is within its range, however long the content.
    public static let minimumLength: Double = 36
    /// What the bar shrinks to when the content is pulled far past an edge.
    public static let dotLength: Double = 8
    /// Margin at both ends of the track, inside the insets, so the bar never touches a bar or the screen edge.
    public static let trackInset: Double = 3

    /// The indicator's rect in viewport coordinates.
    ///
    /// Within the scrollable range the bar moves along the track in proportion to
    /// (offset + insets.top) / (contentH − visibleH), reaching the track's ends exactly at the
    /// range's ends. Past the top it stays at the track's top and loses the overscroll distance from
    /// its length; past the bottom it stays at the track's bottom likewise; never below `dotLength`.
    /// A non-finite offset is treated as the top.
    public static func rect(contentOffset: Double, contentHeight: Double, viewport: Size, insets: EdgeInsets) -> Rect {
        let x = viewport.width - insets.right - edgeInset - thickness
        let trackTop = insets.top + trackInset
        let track = trackLength(viewport: viewport, insets: insets)
        let resting = restingLength(contentHeight: contentHeight, viewport: viewport, insets: insets)
        let range = ScrollToRow.offsetRange(viewportHeight: viewport.height, insets: insets, contentHeight: contentHeight)
        let offset = contentOffset.isFinite ? contentOffset : range.lowerBound
        let dot = min(dotLength, resting)
        if offset < range.lowerBound {
            let length = max(dot, resting - (range.lowerBound - offset))
            return Rect(x: x, y: trackTop, width: thickness, height: length)
        }
        if offset > range.upperBound {
            let length = max(dot, resting - (offset - range.upperBound))
            return Rect(x: x, y: trackTop + track - length, width: thickness, height: length)
        }
        let span = range.upperBound - range.lowerBound
        let progress = span > 0 ? (offset - range.lowerBound) / span : 0
        return Rect(x: x, y: trackTop + progress * (track - resting), width: thickness, height: resting)
    }

    /// Length with no overscroll (the seed's `initialHeightOfScrollIndicator`): track × visible/content,
    /// at least `minimumLength` (or the whole track when that is shorter), at most the whole track (content
    /// that fits the visible area).
    public static func restingLength(contentHeight: Double, viewport: Size, insets: EdgeInsets) -> Double {
        let track = trackLength(viewport: viewport, insets: insets)
        let visible = viewport.height - insets.top - insets.bottom
        guard contentHeight.isFinite, contentHeight > visible, visible > 0 else { return track }
        return min(track, max(min(minimumLength, track), track * visible / contentHeight))
    }

    /// Length of the track the bar moves along: the visible area less `trackInset` at each end.
    public static func trackLength(viewport: Size, insets: EdgeInsets) -> Double {
        let length = viewport.height - insets.top - insets.bottom - 2 * trackInset
        return length.isFinite ? max(0, length) : 0
    }
}
