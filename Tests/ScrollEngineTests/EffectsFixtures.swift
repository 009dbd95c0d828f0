@testable import ScrollEngine

/// Shared tables and helpers for the layout and effect tests.
enum EffectsFixtures {
    /// Variable heights, a section header of 0, an empty section:
    /// table header 0..100; A header 100..120, rows 120..130, 130..160, 160..210; B (no header) row 210..250;
    /// C header 250..275, no rows; D header 275..295, rows 295..355, 355..375.
    static let variableLayout = TableLayout(sections: [
        TableSection(title: "A", headerHeight: 20, rows: [row(0, 10), row(1, 30), row(2, 50)]),
        TableSection(title: "B", headerHeight: 0, rows: [row(3, 40)]),
        TableSection(title: "C", headerHeight: 25, rows: []),
        TableSection(title: "D", headerHeight: 20, rows: [row(4, 60), row(5, 20)]),
    ], tableHeaderHeight: 100)

    /// `count` sections of `rowsPerSection` rows, every row 40 pt and every header 20 pt.
    static func uniformLayout(sections count: Int, rowsPerSection: Int, tableHeaderHeight: Double = 0) -> TableLayout {
        var id = 0
        let sections = (0..<count).map { s in
            TableSection(title: "S\(s)", headerHeight: 20, rows: (0..<rowsPerSection).map { _ in
                defer { id += 1 }
                return TableRow(id: id, title: "row \(id)", group: "group \(s)", detail: "detail \(id)", height: 40)
            })
        }
        return TableLayout(sections: sections, tableHeaderHeight: tableHeaderHeight)
    }

    static func row(_ id: Int, _ height: Double) -> TableRow {
        TableRow(id: id, title: "row \(id)", subtitle: "sub \(id)", group: "g\(id)", detail: "d\(id)", height: height)
    }

    static func isClose(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

    static func ids(_ layout: TableLayout) -> [Int] { layout.sections.flatMap { $0.rows.map(\.id) } }
}
