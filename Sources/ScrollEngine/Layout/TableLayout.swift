/// The geometry of a table, as `UITableView` computes it from its data source and delegate heights:
/// the table header view at the top of the content, then for each section its header followed by
/// its rows. There are no section footers.
///
/// Content coordinates: y = 0 is the top of the table header view (180 pt in parallax-header.txt).
/// A viewport y is content y − `contentOffset`; as in `UIScrollView`, the offset is −insets.top when
/// the table rests at its top, so the header view then starts right below the navigation bar.
///
/// Every query is answered from prefix sums computed once in `init`, so the per-frame work is a
/// binary search plus the rows that are on screen, whatever the table's length. A row's height is
/// taken as 0 when it is negative or not finite, so bad data cannot make positions go backwards.
public struct TableLayout: Sendable {
    /// The sections in table order, each with its rows in order (the persistent row order).
    public private(set) var sections: [TableSection]
    private let headerViewHeight: Double

    /// Content y of each row's top, flattened across sections (index = `flatIndex`).
    private var rowMinY: [Double] = []
    /// Each row's (sanitised) height, flattened.
    private var rowHeights: [Double] = []
    /// The section each flattened row belongs to.
    private var rowSection: [Int] = []
    /// Flat index of each section's first row; one extra entry holds `rowCount`.
    private var sectionFirstRow: [Int] = []
    /// Content y of each section's header top.
    private var sectionMinY: [Double] = []
    /// Content y of each section's end (its last row's bottom, or its header's bottom when empty).
    private var sectionMaxY: [Double] = []
    /// Each section's (sanitised) header height.
    private var sectionHeaderHeights: [Double] = []
    private var totalHeight: Double = 0

    /// Builds the layout of `sections` below a table header view `tableHeaderHeight` points tall
    /// (`UITableView.tableHeaderView`; 0 for none). O(n) once.
    public init(sections: [TableSection], tableHeaderHeight: Double) {
        self.sections = sections
        self.headerViewHeight = Self.sanitised(tableHeaderHeight)
        rebuild()
    }

    /// Height of the table header view above the first section.
    public var tableHeaderHeight: Double { headerViewHeight }

    /// Number of rows in all sections.
    public var rowCount: Int { rowHeights.count }

    /// Header view + every section header + every row: `UIScrollView.contentSize.height`.
    public var contentHeight: Double { totalHeight }

    /// True when `indexPath` names an existing row (check this before `row(at:)`/`rowFrame(at:)`).
    public func contains(_ indexPath: IndexPath) -> Bool {
        sections.indices.contains(indexPath.section)
            && sections[indexPath.section].rows.indices.contains(indexPath.row)
    }

    /// The row at `indexPath`. Precondition: `contains(indexPath)` (like `Array`'s subscript).
    public func row(at indexPath: IndexPath) -> TableRow {
        sections[indexPath.section].rows[indexPath.row]
    }

    /// Row's top and height in content coordinates (`UITableView.rectForRow(at:)`). O(1) (prefix sums).
    /// Precondition: `contains(indexPath)`.
    public func rowFrame(at indexPath: IndexPath) -> (minY: Double, height: Double) {
        let flat = sectionFirstRow[indexPath.section] + indexPath.row
        return (rowMinY[flat], rowHeights[flat])
    }

    /// Top and height of a section's header in content coordinates, where it sits when not pinned.
    /// Precondition: `section` is a valid section index.
    public func sectionHeaderFrame(at section: Int) -> (minY: Double, height: Double) {
        (sectionMinY[section], sectionHeaderHeights[section])
    }

    /// The content y range a section spans, its header included. Precondition: valid `section`.
    public func sectionSpan(at section: Int) -> (minY: Double, maxY: Double) {
        (sectionMinY[section], sectionMaxY[section])
    }

    /// The row at content y, clamped to the first/last row (`UITableView.indexPathForRow(at:)`, but never
    /// nil for a point outside the rows). A y on a section header gives that section's first row. nil only
    /// when the table has no rows. O(log n).
    public func indexPath(atContentY y: Double) -> IndexPath? {
        guard rowCount > 0 else { return nil }
        let probe = y.isNaN ? 0 : y
        let flat = min(firstRow(endingBelow: probe), rowCount - 1)
        return indexPath(forFlat: flat)
    }

    // MARK: - Internals shared by the other files of the layout

    /// The index path of the `flat`-th row overall.
    func indexPath(forFlat flat: Int) -> IndexPath {
        let section = rowSection[flat]
        return IndexPath(section: section, row: flat - sectionFirstRow[section])
    }

    /// The flat index of `indexPath`. Precondition: `contains(indexPath)`.
    func flatIndex(of indexPath: IndexPath) -> Int { sectionFirstRow[indexPath.section] + indexPath.row }

    /// Content y of the flat row's top.
    func minY(ofFlat flat: Int) -> Double { rowMinY[flat] }

    /// Height of the flat row.
    func height(ofFlat flat: Int) -> Double { rowHeights[flat] }

    /// The first flat row whose bottom is below `y` (maxY > y); `rowCount` when none is.
    func firstRow(endingBelow y: Double) -> Int {
        var low = 0, high = rowCount
        while low < high {
            let mid = (low &+ high) >> 1
            if rowMinY[mid] + rowHeights[mid] > y { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The first flat row whose top is at or below `y` (minY >= y); `rowCount` when none is.
    func firstRow(startingAtOrBelow y: Double) -> Int {
        var low = 0, high = rowCount
        while low < high {
            let mid = (low &+ high) >> 1
            if rowMinY[mid] >= y { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The first section whose span ends below `y` (maxY > y); `sections.count` when none does.
    func firstSection(endingBelow y: Double) -> Int {
        var low = 0, high = sections.count
        while low < high {
            let mid = (low &+ high) >> 1
            if sectionMaxY[mid] > y { high = mid } else { low = mid + 1 }
        }
        return low
    }

    private static func sanitised(_ height: Double) -> Double {
        height.isFinite && height > 0 ? height : 0
    }

    private mutating func rebuild() {
        let count = sections.reduce(0) { $0 + $1.rows.count }
        rowMinY = []; rowMinY.reserveCapacity(count)
        rowHeights = []; rowHeights.reserveCapacity(count)
        rowSection = []; rowSection.reserveCapacity(count)
        sectionFirstRow = []; sectionFirstRow.reserveCapacity(sections.count + 1)
        sectionMinY = []; sectionMinY.reserveCapacity(sections.count)
        sectionMaxY = []; sectionMaxY.reserveCapacity(sections.count)
        sectionHeaderHeights = []; sectionHeaderHeights.reserveCapacity(sections.count)
        var y = headerViewHeight
        for (index, section) in sections.enumerated() {
            sectionFirstRow.append(rowHeights.count)
            sectionMinY.append(y)
            let headerHeight = Self.sanitised(section.headerHeight)
            sectionHeaderHeights.append(headerHeight)
            y += headerHeight
            for row in section.rows {
                let height = Self.sanitised(row.height)
                rowMinY.append(y)
                rowHeights.append(height)
                rowSection.append(index)
                // Each top is exactly the previous top + height, so minY + height of one row equals the
                // next row's minY bit for bit and binary searches see no gaps or overlaps.
                y += height
            }
            sectionMaxY.append(y)
        }
        sectionFirstRow.append(rowHeights.count)
        totalHeight = y
    }
}

extension TableLayout: Hashable {
    /// Two layouts are equal when they lay out the same sections below the same header view; the
    /// cached prefix sums follow from those.
    public static func == (lhs: TableLayout, rhs: TableLayout) -> Bool {
        lhs.headerViewHeight == rhs.headerViewHeight && lhs.sections == rhs.sections
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(headerViewHeight)
        hasher.combine(sections)
    }
}
