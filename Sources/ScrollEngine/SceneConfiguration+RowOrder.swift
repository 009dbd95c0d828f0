extension SceneConfiguration {
    /// Row ids of each section, in order: the part of a scene that row moves change.
    public var rowOrder: [[Int]] { sections.map { $0.rows.map { $0.id } } }

    /// This configuration with its rows in `order` (row ids per section, as `rowOrder` gives
    /// them), or nil when `order` is not a rearrangement of this table's rows into the same
    /// number of sections: a stale order must not invent or lose rows.
    public func reorderingRows(_ order: [[Int]]) -> SceneConfiguration? {
        guard order.count == sections.count else { return nil }
        // Rows found by id through an [Int: Int] (id → position in `rows`), the dictionary type the
        // v2 texts table uses too, so the WebAssembly engine carries one dictionary of Ints instead
        // of a second one for rows (docs/wasm.md, "Size"). A later row with the same id wins, and
        // each row can be placed once.
        let rows = Array(sections.lazy.flatMap { $0.rows })
        var positionByID = [Int: Int]()
        for (position, row) in rows.enumerated() { positionByID[row.id] = position }
        guard order.reduce(0, { $0 + $1.count }) == positionByID.count else { return nil }
        var placed = [Bool](repeating: false, count: rows.count)
        var reordered = self
        for (index, ids) in order.enumerated() {
            var sectionRows: [TableRow] = []
            sectionRows.reserveCapacity(ids.count)
            for id in ids {
                guard let position = positionByID[id], !placed[position] else { return nil }
                placed[position] = true
                sectionRows.append(rows[position])
            }
            reordered.sections[index].rows = sectionRows
        }
        return reordered
    }
}
