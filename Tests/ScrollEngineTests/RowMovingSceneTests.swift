import Testing
@testable import ScrollEngine

/// Tap-and-hold row moving (info-panel-and-row-moving.txt: Clear / FMMoveTableView).
/// Rows are 44 pt; at rest (offset −44) row r's top is at viewport y = 180 + 28 + 44·r + 44 = 252 + 44r.
@Suite struct RowMovingSceneTests {
    /// Viewport y of the middle of row `r` at rest at the top.
    func rowMid(_ r: Int) -> Double { 252 + 44 * Double(r) + 22 }

    @Test func heldPointerLiftsTheRowAfter500ms() throws {
        var s = Script()
        try s.send(1000, .pointerDown(point(rowMid(3))))
        try s.send(1200, .pointerMoved(point(rowMid(3) + 6)))  // within the 10 pt slop
        #expect(s.scene.frame(at: 1499).liftedRow == nil)
        #expect(s.scene.frame(at: 1499).isAnimating)  // the hold timer is pending
        let lifted = try #require(s.scene.frame(at: 1500).liftedRow)
        #expect(lifted.row.id == 3)
        #expect(lifted.lift == 0)
        #expect(approx(try #require(s.scene.frame(at: 1575).liftedRow).lift, 0.5))  // 150 ms rise
        #expect(s.scene.frame(at: 1500).placeholder?.indexPath == IndexPath(section: 0, row: 3))
        #expect(s.scene.frame(at: 1600).rows.contains { $0.id == 3 } == false)
        // The next input sees the same lift, applied at 1500.
        try s.send(1700, .pointerMoved(point(rowMid(3) + 6)))
        #expect(try #require(s.scene.frame(at: 1700).liftedRow).lift == 1)
        #expect(s.scene.frame(at: 1700) == s.scene.frame(at: 1700))
    }

    @Test func movingBeyondTheSlopScrollsInsteadOfLifting() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(rowMid(3))))
        try s.send(100, .pointerMoved(point(rowMid(3) - 11)))
        #expect(s.scene.frame(at: 900).liftedRow == nil)
        try s.send(900, .pointerMoved(point(rowMid(3) - 111)))
        #expect(s.offset(900) == -44 + 100)
        #expect(s.scene.frame(at: 900).liftedRow == nil)
    }

    @Test func releaseCommitsTheMoveAndTheSnapshotSettles() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(rowMid(2))))
        // The snapshot follows the finger: 3 rows down puts its centre past rows 3, 4 and 5's middles.
        try s.send(600, .pointerMoved(point(rowMid(5) + 1)))
        let moving = s.scene.frame(at: 600)
        #expect(moving.placeholder?.indexPath == IndexPath(section: 0, row: 5))
        #expect(approx(try #require(moving.liftedRow).row.y, rowMid(5) + 1 - 22))  // grab offset kept
        #expect(approx(try #require(moving.rows.first { $0.id == 3 }).y, 252 + 44 * 2))  // row 3 moved up into the gap
        let changes = try s.send(700, .pointerUp(point(rowMid(5) + 1)))
        #expect(changes == [.rowMoved(rowID: 2, from: IndexPath(section: 0, row: 2), to: IndexPath(section: 0, row: 5))])
        #expect(s.scene.sections[0].rows.map(\.id).prefix(7) == [0, 1, 3, 4, 5, 2, 6])
        let settling = try #require(s.scene.frame(at: 800).liftedRow)
        #expect(settling.isSettling)
        #expect(s.scene.frame(at: 700 + RowMoving.settleDuration).liftedRow == nil)
        #expect(s.scene.frame(at: 700 + RowMoving.settleDuration).rows.contains { $0.id == 2 && $0.y == 252 + 44 * 5 })
    }

    @Test func cancelPutsTheRowBackWithNoChange() throws {
        var s = Script()
        try s.send(0, .longPressBegan(point(rowMid(2))))
        #expect(s.scene.frame(at: 0).liftedRow?.row.id == 2)
        try s.send(50, .longPressMoved(point(rowMid(6) + 1)))
        #expect(s.scene.frame(at: 50).placeholder?.indexPath == IndexPath(section: 0, row: 6))
        let changes = try s.send(100, .longPressCancelled)
        #expect(changes.isEmpty)
        #expect(s.scene.sections == plainConfiguration().sections)
        #expect(s.scene.frame(at: 200).liftedRow?.isSettling == true)
        #expect(s.scene.frame(at: 200).placeholder?.indexPath == IndexPath(section: 0, row: 2))
    }

    @Test func autoscrollNearTheBottomEdgeIsLinearAndClamped() throws {
        var s = Script()
        try s.send(0, .longPressBegan(point(rowMid(2))))
        try s.send(10, .longPressMoved(point(850)))  // deep in the bottom zone: full speed
        let speed = RowMoving.autoscrollVelocity(fingerY: 850, rowHeight: 44, viewport: Size(width: 390, height: 844), insets: EdgeInsets(top: 44))
        #expect(speed == RowMoving.maxAutoscrollSpeed)
        #expect(approx(s.offset(1010), -44 + speed))
        #expect(approx(s.offset(2010), -44 + 2 * speed))
        #expect(s.offset(100_000) == 3764)
        #expect(s.scene.frame(at: 100_000).isAnimating == false || s.scene.frame(at: 100_000).phase == .tracking)
        // Dropping there moves the row far down.
        let changes = try s.send(20_000, .longPressEnded(point(850)))
        guard case .rowMoved(let id, _, let to) = try #require(changes.first) else { return }
        #expect(id == 2)
        #expect(to.row > 60)
    }
}

@Suite struct InputValidationTests {
    func rejects(_ kind: InputKind, at time: Double = 100, after setup: [(Double, InputKind)] = [],
                 _ expected: InputRejection) throws {
        var s = Script()
        for (t, k) in setup { try s.send(t, k) }
        let before = s.scene
        #expect(throws: expected) { try s.scene.apply(InputEvent(id: 99, time: time, kind: kind)) }
        #expect(s.scene.frame(at: 5000) == before.frame(at: 5000))
        #expect(s.scene.sections == before.sections)
    }

    @Test func timeGoingBackwards() throws {
        try rejects(.key(.arrowDown), at: 5, after: [(10, .key(.home))], .timeWentBackwards(previous: 10, got: 5))
    }

    @Test func nonFiniteNumbers() throws {
        try rejects(.wheel(dx: 0, dy: .nan, mode: .pixel), .notFinite(field: "dy"))
        try rejects(.pointerDown(Point(x: 1, y: .infinity)), .notFinite(field: "y"))
        try rejects(.key(.end), at: .nan, .notFinite(field: "time"))
    }

    @Test func rowOutOfRange() throws {
        try rejects(.scrollToRow(IndexPath(section: 0, row: 100), position: .top, animated: true),
                    .rowOutOfRange(IndexPath(section: 0, row: 100)))
        try rejects(.scrollToRow(IndexPath(section: 1, row: 0), position: .none, animated: false),
                    .rowOutOfRange(IndexPath(section: 1, row: 0)))
    }

    @Test func badSizes() throws {
        try rejects(.resize(Size(width: 0, height: 800)), .invalidSize(Size(width: 0, height: 800)))
        try rejects(.resize(Size(width: 300, height: -1)), .invalidSize(Size(width: 300, height: -1)))
    }

    @Test func unexpectedSequences() throws {
        try rejects(.pointerMoved(point(10)), .unexpected("pointer event with no pointer down"))
        try rejects(.pointerUp(point(10)), .unexpected("pointer event with no pointer down"))
        try rejects(.longPressEnded(point(10)), .unexpected("long-press event with no long press begun"))
        try rejects(.pointerDown(point(10)), after: [(0, .pointerDown(point(300)))],
                    .unexpected("pointerDown while a pointer is already down"))
        try rejects(.longPressMoved(point(10)), after: [(0, .pointerDown(point(300)))],
                    .unexpected("long-press event with no long press begun"))
    }
}
