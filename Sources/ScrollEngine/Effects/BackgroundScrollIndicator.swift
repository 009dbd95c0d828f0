/// A long background image that scrolls in proportion to the table, so where it shows tells the
/// user where they are in the table (background-scroll-indicator.txt and
/// background-scroll-indicator-complete-code.txt).
///
/// In the post the image lives in a second `UIScrollView` set as the table's `backgroundView`;
/// `scrollViewDidScroll:` of the table sets that scroll view's `contentOffset.y` so that both reach
/// their ends together. The page draws the image at y = −offset.
public enum BackgroundScrollIndicator {
    /// background-scroll-indicator*.txt: newOffset = tableOffset × (bgContentH − bgFrameH)/(contentH − frameH),
    /// only when contentH > frameH (else returns `current`). ScrollScene passes inset-adjusted values
    /// (tableOffset + insets.top, contentHeight + insets.top + insets.bottom) so the seed formula holds exactly.
    ///
    /// The guard is the complete-code copy's `if (diffTableView > 0)`: a table that fits its frame cannot
    /// scroll in proportion to anything, so the background keeps its offset (`current`). Non-finite input
    /// also keeps `current`. The result is not clamped: when the table rubber-bands past an edge the
    /// background overshoots in proportion, exactly as the post's code does.
    public static func offset(tableOffset: Double, tableContentHeight: Double, tableFrameHeight: Double,
                              backgroundContentHeight: Double, backgroundFrameHeight: Double, current: Double) -> Double {
        let diffTableView = tableContentHeight - tableFrameHeight
        guard diffTableView > 0, diffTableView.isFinite, tableOffset.isFinite else { return current }
        let diffScroll = backgroundContentHeight - backgroundFrameHeight
        guard diffScroll.isFinite else { return current }
        return tableOffset * (diffScroll / diffTableView)
    }
}
