extension SceneConfiguration {
    /// Row ids of each section, in order: the part of a scene that row moves change.
    public var rowOrder: [[Int]] { sections.map { $0.rows.map { $0.id } } }

    /// This configuration with its rows in `order` (row ids per section, as `rowOrder` gives
    /// them), or nil when `order` is not a rearrangement of this table's rows into the same
    /// number of sections: a stale order must not invent or lose rows.
    public func reorderingRows(_ order: [[Int]]) -> SceneConfiguration? {
        guard order.count == sections.count else { return nil }
        var rowsByID: [Int: TableRow] = [:]
        for row in sections.lazy.flatMap({ $0.rows }) { rowsByID[row.id] = row }
        guard order.reduce(0, { $0 + $1.count }) == rowsByID.count else { return nil }
        var reordered = self
        for (index, ids) in order.enumerated() {
            var rows: [TableRow] = []
            rows.reserveCapacity(ids.count)
            for id in ids {
                guard let row = rowsByID.removeValue(forKey: id) else { return nil }
                rows.append(row)
            }
            reordered.sections[index].rows = rows
        }
        return reordered
    }
}
