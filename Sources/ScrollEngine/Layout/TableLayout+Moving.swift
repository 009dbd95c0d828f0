extension TableLayout {
    /// The layout after moving one row (like UITableView moveRowAtIndexPath:toIndexPath:),
    /// `to` being the index path in the resulting order. Also across sections.
    ///
    /// As with `tableView(_:moveRowAt:to:)`, `to` is read after the row has been taken out, so moving
    /// row 2 to row 5 of the same section puts it after what were rows 3, 4 and 5. The row keeps its
    /// `id`, so clients can follow it. Returns the layout unchanged when `from` is not a row or `to` is
    /// not a place in the resulting table (check with `contains` and `canMoveRow` first to tell the
    /// caller why). O(n): the prefix sums are rebuilt.
    public func movingRow(from: IndexPath, to: IndexPath) -> TableLayout {
        guard canMoveRow(from: from, to: to) else { return self }
        var moved = sections
        let row = moved[from.section].rows.remove(at: from.row)
        moved[to.section].rows.insert(row, at: to.row)
        return TableLayout(sections: moved, tableHeaderHeight: tableHeaderHeight)
    }

    /// True when `from` names a row and `to` names a place for it once it has been taken out:
    /// row 0 through the section's row count (its count minus one when it is `from`'s section).
    public func canMoveRow(from: IndexPath, to: IndexPath) -> Bool {
        guard contains(from), sections.indices.contains(to.section) else { return false }
        let countAfterRemoval = sections[to.section].rows.count - (to.section == from.section ? 1 : 0)
        return to.row >= 0 && to.row <= countAfterRemoval
    }
}
