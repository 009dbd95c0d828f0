import Testing
@testable import ScrollEngine

@Suite("Scene builders")
struct SeedScenesTests {
    @Test("each scene builder builds the same scene every time")
    func buildersAreDeterministic() {
        #expect(DemoScene.configuration() == DemoScene.configuration())
        #expect(SeedTableScene.configuration() == SeedTableScene.configuration())
    }

    @Test("scroll-to-row-near-edges.txt: the DemoTable is one section of 20 44 pt rows 'Option n', row 19 checked")
    func seedTableMatchesTheSeed() throws {
        let configuration = SeedTableScene.configuration()
        #expect(configuration.sections.count == 1)
        let rows = try #require(configuration.sections.first).rows
        #expect(rows.map(\.title) == (0..<20).map { "Option \($0)" })
        #expect(rows.allSatisfy { $0.height == 44 && $0.subtitle.isEmpty })
        #expect(rows.filter { $0.detail == SeedTableScene.checkmark }.map(\.id) == [19])
        #expect(configuration.insets == EdgeInsets(top: 44))
        #expect(configuration.viewport == Size(width: 390, height: 844))
        #expect(configuration.headerHeight == 0 && configuration.parallaxLayers.isEmpty)
        #expect(configuration.sections[0].headerHeight == 0)
        #expect(configuration.background?.image == "images/background.svg")
    }

    /// Row 19 ends entirely between the 44 pt bar and the bottom edge, for each value the post tried.
    @Test("scroll-to-row-near-edges.txt: rows 0, 10 and 19 at middle end entirely visible, animated or not",
          arguments: [0, 10, 19], [false, true])
    func seedTableScrollToRowMiddle(row: Int, animated: Bool) throws {
        var scene = ScrollScene(configuration: SeedTableScene.configuration())
        _ = try scene.apply(InputEvent(id: 1, time: 0, kind: .scrollToRow(IndexPath(section: 0, row: row),
                                                                           position: .middle, animated: animated)))
        var time = 0.0
        var frame = scene.frame(at: time)
        while frame.isAnimating && time < 5000 {
            time += 1000.0 / 60
            frame = scene.frame(at: time)
        }
        #expect(!frame.isAnimating)
        let visible = try #require(frame.rows.first { $0.indexPath == IndexPath(section: 0, row: row) })
        #expect(visible.y >= 44 && visible.y + visible.height <= 844, "row \(row) at y \(visible.y)")
        #expect(visible.title == "Option \(row)")
        // 880 pt of rows under an 800 pt visible area: the offset range is −44…36.
        #expect(frame.contentOffset >= -44 && frame.contentOffset <= 36)
        if row == 19 { #expect(frame.contentOffset == 36 && visible.y + visible.height == 844) }
        if row == 0 { #expect(frame.contentOffset == -44 && visible.y == 44) }
    }
}

@Suite("Row order")
struct RowOrderTests {
    @Test func aRearrangementOfTheRowsIsApplied() throws {
        let base = DemoScene.configuration()
        var order = base.rowOrder
        order[0].swapAt(0, 1)
        let last = order[1].removeLast()
        order[0].insert(last, at: 0)
        let reordered = try #require(base.reorderingRows(order))
        #expect(reordered.rowOrder == order)
        #expect(reordered.sections[0].rows[0] == base.sections[1].rows.last, "rows keep their text and height")
        #expect(reordered.sections.map(\.title) == base.sections.map(\.title))
    }

    @Test("an order that invents, loses or repeats rows, or changes sections, is refused", arguments: [
        [[0, 1, 2]],                    // rows lost
        [Array(0..<20), [20]],          // a section that does not exist
        [[0, 0] + Array(2..<20)],       // a row twice, one lost
        [Array(1..<21)],                // a row that does not exist
    ])
    func refusesWhatIsNotARearrangement(order: [[Int]]) {
        #expect(SeedTableScene.configuration().reorderingRows(order) == nil)
    }
}
