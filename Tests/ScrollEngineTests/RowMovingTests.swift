import Testing
@testable import ScrollEngine

@Suite("RowMoving")
struct RowMovingTests {
    // Two sections of 20 pt headers and 40 pt rows, no table header:
    // S0 header 0..20 (mid 10), rows mids 40, 80, 120, 160; S1 header 180..200 (mid 190), rows mids 220, 260, 300.
    let layout = TableLayout(sections: [
        TableSection(title: "S0", headerHeight: 20, rows: (0..<4).map { TableRow(id: $0, title: "\($0)", height: 40) }),
        TableSection(title: "S1", headerHeight: 20, rows: (4..<7).map { TableRow(id: $0, title: "\($0)", height: 40) }),
    ], tableHeaderHeight: 0)

    func destination(from: IndexPath, _ y: Double, in table: TableLayout? = nil) -> IndexPath {
        RowMoving.destination(layout: table ?? layout, from: from, snapshotMidY: y)
    }

    @Test("info-panel-and-row-moving.txt: moving down, the placeholder passes a neighbour once the centre crosses its midpoint")
    func movingDown() {
        let from = IndexPath(section: 0, row: 1)
        #expect(destination(from: from, 80) == from)
        #expect(destination(from: from, 119.9) == from)
        #expect(destination(from: from, 120.1) == IndexPath(section: 0, row: 2))
        #expect(destination(from: from, 161) == IndexPath(section: 0, row: 3))
        // Across the section boundary: past the next header's midpoint it is row 0 of the next section.
        #expect(destination(from: from, 189) == IndexPath(section: 0, row: 3))
        #expect(destination(from: from, 191) == IndexPath(section: 1, row: 0))
        #expect(destination(from: from, 221) == IndexPath(section: 1, row: 1))
        #expect(destination(from: from, 10_000) == IndexPath(section: 1, row: 3))
    }

    @Test("info-panel-and-row-moving.txt: moving up, the placeholder passes neighbours and the section header")
    func movingUp() {
        let from = IndexPath(section: 1, row: 1)
        #expect(destination(from: from, 221) == from)
        #expect(destination(from: from, 219) == IndexPath(section: 1, row: 0))
        #expect(destination(from: from, 191) == IndexPath(section: 1, row: 0))
        #expect(destination(from: from, 189) == IndexPath(section: 0, row: 4))
        #expect(destination(from: from, 39) == IndexPath(section: 0, row: 0))
        #expect(destination(from: from, -1_000) == IndexPath(section: 0, row: 0))
    }

    @Test("a neighbour just passed must be crossed back at its new midpoint (no flicker)")
    func hysteresis() {
        let from = IndexPath(section: 0, row: 1)
        let to = destination(from: from, 121)
        let moved = layout.movingRow(from: from, to: to)
        #expect(moved.row(at: to).id == 1)
        // The passed row now sits at 60..100; staying near the crossing keeps the placeholder.
        #expect(destination(from: to, 119, in: moved) == to)
        #expect(destination(from: to, 81, in: moved) == to)
        #expect(destination(from: to, 79, in: moved) == from)
    }

    @Test("destinations feed movingRow across a section boundary, preserving ids; bad input stays put")
    func feedsMovingRow() {
        let from = IndexPath(section: 0, row: 1)
        let to = destination(from: from, 195)
        let moved = layout.movingRow(from: from, to: to)
        #expect(moved.sections.map { $0.rows.map(\.id) } == [[0, 2, 3], [1, 4, 5, 6]])
        #expect(destination(from: IndexPath(section: 5, row: 0), 100) == IndexPath(section: 5, row: 0))
        #expect(destination(from: from, .nan) == from)
    }

    @Test("info-panel-and-row-moving.txt: autoscroll is 0 outside the zones, grows with depth, capped at 360 pt/s")
    func autoscroll() {
        let viewport = Size(width: 390, height: 844), insets = EdgeInsets(top: 44)
        func speed(_ y: Double) -> Double {
            RowMoving.autoscrollVelocity(fingerY: y, rowHeight: 50, viewport: viewport, insets: insets)
        }
        // Zone = 0.6 × 50 = 30 pt inside each inset.
        #expect(speed(400) == 0)
        #expect(speed(74) == 0)
        #expect(speed(814) == 0)
        #expect(speed(59) == -180)
        #expect(speed(829) == 180)
        #expect(speed(44) == -360)
        #expect(speed(844) == 360)
        #expect(speed(0) == -360)
        #expect(speed(2000) == 360)
        #expect(abs(speed(50)) > abs(speed(60)) && abs(speed(60)) > abs(speed(70)))
        #expect(RowMoving.maxAutoscrollSpeed == 360)
        #expect(RowMoving.autoscrollVelocity(fingerY: .nan, rowHeight: 50, viewport: viewport, insets: insets) == 0)
        #expect(RowMoving.autoscrollVelocity(fingerY: 0, rowHeight: 0, viewport: viewport, insets: insets) == 0)
    }
}
