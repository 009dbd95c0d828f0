import Testing
@testable import ScrollEngine

@Suite("TableLayout")
struct TableLayoutTests {
    let layout = EffectsFixtures.variableLayout

    @Test("layout with variable heights: row frames, content height and row count from prefix sums")
    func variableHeights() {
        #expect(layout.rowCount == 6)
        #expect(layout.contentHeight == 375)
        #expect(layout.tableHeaderHeight == 100)
        let expected: [(IndexPath, Double, Double)] = [
            (IndexPath(section: 0, row: 0), 120, 10), (IndexPath(section: 0, row: 1), 130, 30),
            (IndexPath(section: 0, row: 2), 160, 50), (IndexPath(section: 1, row: 0), 210, 40),
            (IndexPath(section: 3, row: 0), 295, 60), (IndexPath(section: 3, row: 1), 355, 20),
        ]
        for (path, minY, height) in expected {
            let frame = layout.rowFrame(at: path)
            #expect(frame.minY == minY && frame.height == height, "\(path)")
        }
        #expect(layout.sectionHeaderFrame(at: 2) == (250, 25))
    }

    @Test("contains and row(at:) agree with the sections")
    func containsAndRow() {
        #expect(layout.contains(IndexPath(section: 3, row: 1)))
        #expect(!layout.contains(IndexPath(section: 2, row: 0)))
        #expect(!layout.contains(IndexPath(section: 4, row: 0)))
        #expect(!layout.contains(IndexPath(section: 0, row: -1)))
        #expect(layout.row(at: IndexPath(section: 1, row: 0)).id == 3)
    }

    @Test("bad heights count as 0 so positions never go backwards")
    func badHeights() {
        let bad = TableLayout(sections: [TableSection(title: "X", headerHeight: .nan, rows: [
            EffectsFixtures.row(0, -5), EffectsFixtures.row(1, .infinity), EffectsFixtures.row(2, 10),
        ])], tableHeaderHeight: -3)
        #expect(bad.contentHeight == 10)
        #expect(bad.rowFrame(at: IndexPath(section: 0, row: 2)) == (0, 10))
    }

    @Test("indexPath(atContentY:) finds the row, clamps to first/last and maps headers to the next row")
    func indexPathAtY() {
        func at(_ y: Double) -> IndexPath? { layout.indexPath(atContentY: y) }
        #expect(at(-50) == IndexPath(section: 0, row: 0))
        #expect(at(110) == IndexPath(section: 0, row: 0))
        #expect(at(129.9) == IndexPath(section: 0, row: 0))
        #expect(at(130) == IndexPath(section: 0, row: 1))
        #expect(at(209) == IndexPath(section: 0, row: 2))
        #expect(at(210) == IndexPath(section: 1, row: 0))
        #expect(at(260) == IndexPath(section: 3, row: 0))
        #expect(at(374) == IndexPath(section: 3, row: 1))
        #expect(at(10_000) == IndexPath(section: 3, row: 1))
        #expect(at(.nan) == IndexPath(section: 0, row: 0))
        #expect(TableLayout(sections: [], tableHeaderHeight: 180).indexPath(atContentY: 0) == nil)
    }

    @Test("visibleRows gives the rows intersecting the viewport in viewport coordinates")
    func visibleRowsSmall() {
        let rows = layout.visibleRows(contentOffset: 125, viewportHeight: 40)
        #expect(rows.map(\.id) == [0, 1, 2])
        #expect(rows.map(\.y) == [-5, 5, 35])
        #expect(rows[2].height == 50 && rows[2].title == "row 2" && rows[2].subtitle == "sub 2" && rows[2].detail == "d2")
        #expect(rows[2].indexPath == IndexPath(section: 0, row: 2))
        // A row ending exactly at the top or starting exactly at the bottom is not visible.
        #expect(layout.visibleRows(contentOffset: 130, viewportHeight: 80).map(\.id) == [1, 2])
        // Across a 0 pt header and an empty section.
        let across = layout.visibleRows(contentOffset: 200, viewportHeight: 200)
        #expect(across.map(\.id) == [2, 3, 4, 5])
        #expect(across.map(\.indexPath) == [IndexPath(section: 0, row: 2), IndexPath(section: 1, row: 0),
                                            IndexPath(section: 3, row: 0), IndexPath(section: 3, row: 1)])
        #expect(across.map(\.y) == [-40, 10, 95, 155])
        #expect(layout.visibleRows(contentOffset: 0, viewportHeight: 0).isEmpty)
        #expect(layout.visibleRows(contentOffset: .nan, viewportHeight: 100).isEmpty)
        #expect(layout.visibleRows(contentOffset: 400, viewportHeight: 100).isEmpty)
    }

    @Test("visibleRows matches a linear scan at every offset of the demo scene")
    func visibleRowsMatchesScan() {
        let demo = TableLayout(sections: DemoScene.sections(rowCount: 400), tableHeaderHeight: 180)
        var all: [(path: IndexPath, minY: Double, height: Double)] = []
        for (s, section) in demo.sections.enumerated() {
            for r in section.rows.indices {
                let frame = demo.rowFrame(at: IndexPath(section: s, row: r))
                all.append((IndexPath(section: s, row: r), frame.minY, frame.height))
            }
        }
        var offset = -300.0
        while offset < demo.contentHeight + 100 {
            let expected = all.filter { $0.minY + $0.height > offset && $0.minY < offset + 844 }
            let got = demo.visibleRows(contentOffset: offset, viewportHeight: 844)
            #expect(got.map(\.indexPath) == expected.map(\.path), "offset \(offset)")
            #expect(got.map(\.y) == expected.map { $0.minY - offset }, "offset \(offset)")
            offset += 37.25
        }
    }

    @Test("sectionHeaders: natural place, pinned at the top inset, pushed up by the next header, free when pulled down")
    func pinnedHeaders() {
        // Sections of 20 pt header + 5 × 40 pt rows: spans 100..320, 320..540, 540..760.
        let uniform = EffectsFixtures.uniformLayout(sections: 3, rowsPerSection: 5, tableHeaderHeight: 100)
        func headers(_ offset: Double) -> [VisibleSectionHeader] {
            uniform.sectionHeaders(contentOffset: offset, viewportHeight: 400, topInset: 44)
        }
        // At rest: both headers at their natural places.
        #expect(headers(-44).map(\.section) == [0, 1])
        #expect(headers(-44).map(\.y) == [144, 364])
        // Section 0 has scrolled under the bar: its header sticks at the inset.
        #expect(headers(100).map(\.y) == [44, 220])
        // Section 0's last row reaches its header: pushed up, touching section 1's header.
        let pushed = headers(270)
        #expect(pushed.map(\.section) == [0, 1, 2])
        #expect(pushed.map(\.y) == [30, 50, 270])
        #expect(pushed[0].y + pushed[0].height == pushed[1].y)
        // Pulled down past the top: the header moves with the content.
        #expect(headers(-144).map(\.y) == [244])
        // Far down only the third section's pinned header remains.
        #expect(headers(600).map(\.section) == [2])
        #expect(headers(600).map(\.y) == [44])
        #expect(headers(600)[0].title == "S2" && headers(600)[0].height == 20)
        // A 0 pt header (section B of the variable layout) is never listed.
        #expect(!layout.sectionHeaders(contentOffset: 150, viewportHeight: 200, topInset: 0).map(\.section).contains(1))
    }

    @Test("movingRow moves within a section (destination read after removal) and preserves all row ids")
    func moveWithinSection() {
        let uniform = EffectsFixtures.uniformLayout(sections: 2, rowsPerSection: 6)
        let moved = uniform.movingRow(from: IndexPath(section: 0, row: 1), to: IndexPath(section: 0, row: 4))
        #expect(moved.sections[0].rows.map(\.id) == [0, 2, 3, 4, 1, 5])
        #expect(EffectsFixtures.ids(moved).sorted() == EffectsFixtures.ids(uniform))
        #expect(moved.contentHeight == uniform.contentHeight)
        #expect(moved.rowFrame(at: IndexPath(section: 0, row: 4)).minY == 20 + 4 * 40)
    }

    @Test("movingRow moves across sections, keeping heights, and refuses invalid paths")
    func moveAcrossSections() {
        let moved = layout.movingRow(from: IndexPath(section: 0, row: 2), to: IndexPath(section: 2, row: 0))
        #expect(moved.sections.map { $0.rows.map(\.id) } == [[0, 1], [3], [2], [4, 5]])
        #expect(moved.contentHeight == layout.contentHeight)
        // The empty section C now holds the 50 pt row right below its 25 pt header.
        #expect(moved.rowFrame(at: IndexPath(section: 2, row: 0)) == (200 + 25, 50))
        #expect(EffectsFixtures.ids(moved).sorted() == EffectsFixtures.ids(layout).sorted())
        // Invalid paths leave the layout as it was.
        #expect(layout.movingRow(from: IndexPath(section: 2, row: 0), to: IndexPath(section: 0, row: 0)) == layout)
        #expect(layout.movingRow(from: IndexPath(section: 0, row: 0), to: IndexPath(section: 0, row: 3)) == layout)
        #expect(layout.movingRow(from: IndexPath(section: 0, row: 0), to: IndexPath(section: 9, row: 0)) == layout)
        #expect(layout.canMoveRow(from: IndexPath(section: 0, row: 0), to: IndexPath(section: 1, row: 1)))
    }

    @Test("movingRow preserves all row ids over many moves of the demo scene")
    func manyMovesPreserveIDs() {
        var moving = TableLayout(sections: DemoScene.sections(rowCount: 300), tableHeaderHeight: 180)
        let original = EffectsFixtures.ids(moving)
        for step in 0..<200 {
            let fromFlat = (step * 37) % moving.rowCount
            let from = moving.indexPath(atContentY: moving.rowFrame(at: path(moving, fromFlat)).minY)!
            let toSection = (step * 11) % moving.sections.count
            let countAfter = moving.sections[toSection].rows.count - (toSection == from.section ? 1 : 0)
            let to = IndexPath(section: toSection, row: (step * 5) % (countAfter + 1))
            let id = moving.row(at: from).id
            moving = moving.movingRow(from: from, to: to)
            #expect(moving.row(at: to).id == id)
        }
        #expect(EffectsFixtures.ids(moving).sorted() == original.sorted())
        #expect(moving.rowCount == original.count)
    }

    private func path(_ layout: TableLayout, _ flat: Int) -> IndexPath {
        var remaining = flat
        for (s, section) in layout.sections.enumerated() {
            if remaining < section.rows.count { return IndexPath(section: s, row: remaining) }
            remaining -= section.rows.count
        }
        return IndexPath(section: 0, row: 0)
    }
}
