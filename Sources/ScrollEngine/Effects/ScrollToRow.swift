/// `UITableView.scrollToRow(at:at:animated:)`'s target offset, computed against the *visible* area
/// between the content insets (scroll-to-row-near-edges.txt).
///
/// The post shows rows near the end of a table pushed by a navigation controller not scrolling into
/// view: the table's frame ran under the 44 pt bar, so "bottom" was behind it. Its fix shrinks the
/// frame by the bar's height. Here the viewport keeps the full height and the bar is `insets.top`
/// (bottom bars `insets.bottom`), and every position and the clamp account for them, which gives the
/// fixed behaviour: the row ends between the bars even at the very end of the table.
public enum ScrollToRow {
    /// scroll-to-row-near-edges.txt: Top rowMinY − insetTop; Middle rowMidY − (insetTop + (H − insetTop − insetBottom)/2);
    /// Bottom rowMaxY − (H − insetBottom); None: current when the row is fully visible between the insets, else the
    /// nearer of Top and Bottom; then clamped to [−insetTop, max(−insetTop, contentH − H + insetBottom)].
    ///
    /// The clamp is why near-edge rows cannot reach the requested position: the last row asked for
    /// "middle" ends at the bottom of the visible area instead, fully visible. Non-finite input returns
    /// `currentOffset` (clamped when it is finite).
    public static func targetOffset(rowMinY: Double, rowMaxY: Double, position: ScrollPosition, currentOffset: Double,
                                    viewportHeight: Double, insets: EdgeInsets, contentHeight: Double) -> Double {
        let range = offsetRange(viewportHeight: viewportHeight, insets: insets, contentHeight: contentHeight)
        guard rowMinY.isFinite, rowMaxY.isFinite, currentOffset.isFinite else {
            return currentOffset.isFinite ? clamp(currentOffset, range) : range.lowerBound
        }
        let visibleHeight = viewportHeight - insets.top - insets.bottom
        let top = rowMinY - insets.top
        let bottom = rowMaxY - (viewportHeight - insets.bottom)
        let unclamped: Double
        switch position {
        case .top:
            unclamped = top
        case .middle:
            unclamped = (rowMinY + rowMaxY) / 2 - (insets.top + visibleHeight / 2)
        case .bottom:
            unclamped = bottom
        case .none:
            let fullyVisible = rowMinY >= currentOffset + insets.top
                && rowMaxY <= currentOffset + viewportHeight - insets.bottom
            if fullyVisible {
                unclamped = currentOffset
            } else {
                unclamped = abs(top - currentOffset) <= abs(bottom - currentOffset) ? top : bottom
            }
        }
        return clamp(unclamped, range)
    }

    /// The allowed offset range [−insetTop, max(−insetTop, contentH − H + insetBottom)]: from the content's top
    /// just below the top bar to its bottom just above the bottom bar (`UIScrollView`'s resting range).
    /// Non-finite sizes give the single offset −insetTop (or 0 when that too is not finite).
    public static func offsetRange(viewportHeight: Double, insets: EdgeInsets, contentHeight: Double) -> ClosedRange<Double> {
        let low = insets.top.isFinite ? -insets.top : 0
        let high = contentHeight - viewportHeight + insets.bottom
        guard high.isFinite else { return low...low }
        return low...max(low, high)
    }

    private static func clamp(_ value: Double, _ range: ClosedRange<Double>) -> Double {
        min(max(value, range.lowerBound), range.upperBound)
    }
}
