extension TableLayout {
    /// Rows intersecting [contentOffset, contentOffset + viewportHeight), y in viewport coordinates:
    /// what `UITableView.indexPathsForVisibleRows` would give, with each cell's on-screen position.
    /// Rows under the navigation bar (inside the top inset) count as visible, as they do in UIKit,
    /// because a translucent bar shows them. O(log n + visible); allocates only the result.
    public func visibleRows(contentOffset: Double, viewportHeight: Double) -> [VisibleRow] {
        guard rowCount > 0, contentOffset.isFinite, viewportHeight.isFinite, viewportHeight > 0 else { return [] }
        let bottom = contentOffset + viewportHeight
        let first = firstRow(endingBelow: contentOffset)
        let end = firstRow(startingAtOrBelow: bottom)
        guard first < end else { return [] }
        var result: [VisibleRow] = []
        result.reserveCapacity(end - first)
        for flat in first..<end {
            let path = indexPath(forFlat: flat)
            let row = sections[path.section].rows[path.row]
            result.append(VisibleRow(
                indexPath: path, id: row.id, y: minY(ofFlat: flat) - contentOffset, height: height(ofFlat: flat),
                title: row.title, subtitle: row.subtitle, detail: row.detail))
        }
        return result
    }

    /// Visible section headers, plain-style pinned: a section's header sticks at y = topInset while
    /// its section scrolls under it and is pushed up by the next section's header.
    ///
    /// This is `UITableView.Style.plain`: a header sits at its natural place until the content
    /// under the navigation bar reaches it, then stays at the top inset; when its section's last row
    /// scrolls up to the header's bottom edge, the header leaves with it, which looks like the next
    /// header pushing it away. Pulled down past the top (offset < −topInset) headers stay at their
    /// natural place and travel with the content. Headers 0 pt tall are left out. O(log s + visible).
    public func sectionHeaders(contentOffset: Double, viewportHeight: Double, topInset: Double) -> [VisibleSectionHeader] {
        guard !sections.isEmpty, contentOffset.isFinite, viewportHeight.isFinite, viewportHeight > 0,
              topInset.isFinite else { return [] }
        let bottom = contentOffset + viewportHeight
        let pinLine = contentOffset + topInset
        var result: [VisibleSectionHeader] = []
        var section = firstSection(endingBelow: contentOffset)
        while section < sections.count {
            let span = sectionSpan(at: section)
            if span.minY >= bottom { break }
            let header = sectionHeaderFrame(at: section)
            if header.height > 0 {
                let y = min(max(header.minY, pinLine), span.maxY - header.height)
                if y + header.height > contentOffset && y < bottom {
                    result.append(VisibleSectionHeader(
                        section: section, y: y - contentOffset, height: header.height, title: sections[section].title))
                }
            }
            section += 1
        }
        return result
    }
}
