import Testing
@testable import ScrollEngine

@Suite("ScrollToRow")
struct ScrollToRowTests {
    let insets = EdgeInsets(top: 44, bottom: 34)
    let viewport = 844.0
    let content = 5000.0

    func target(_ minY: Double, _ maxY: Double, _ position: ScrollPosition, current: Double = 0) -> Double {
        ScrollToRow.targetOffset(rowMinY: minY, rowMaxY: maxY, position: position, currentOffset: current,
                                 viewportHeight: viewport, insets: insets, contentHeight: content)
    }

    @Test("scroll-to-row-near-edges.txt: top puts the row right under the top bar")
    func top() { #expect(target(1000, 1044, .top) == 1000 - 44) }

    @Test("scroll-to-row-near-edges.txt: middle centres the row in the area between the insets")
    func middle() {
        let offset = target(1000, 1044, .middle)
        #expect(offset == 1022 - (44 + (844 - 44 - 34) / 2))
        let visibleMid = (44 + (844 - 34)) / 2.0
        #expect(1022 - offset == visibleMid)
    }

    @Test("scroll-to-row-near-edges.txt: bottom puts the row right above the bottom bar")
    func bottom() { #expect(target(1000, 1044, .bottom) == 1044 - (844 - 34)) }

    @Test("scroll-to-row-near-edges.txt: none keeps a fully visible row, else scrolls the least")
    func none() {
        // Visible between the insets at offset 500: content 544..1310.
        #expect(target(1000, 1044, .none, current: 500) == 500)
        // Half under the top bar: scroll so it is at the top.
        #expect(target(520, 564, .none, current: 500) == 520 - 44)
        // Half under the bottom bar: scroll so it is at the bottom.
        #expect(target(1290, 1334, .none, current: 500) == 1334 - 810)
        // Far below: the bottom position is the nearer one.
        #expect(target(3000, 3044, .none, current: 500) == 3044 - 810)
    }

    @Test("scroll-to-row-near-edges.txt: targets are clamped to [−insetTop, contentH − H + insetBottom]")
    func clamp() {
        #expect(ScrollToRow.offsetRange(viewportHeight: viewport, insets: insets, contentHeight: content) == -44...(5000 - 844 + 34))
        #expect(target(0, 44, .bottom) == -44)
        #expect(target(10, 54, .middle) == -44)
        #expect(target(4956, 5000, .top) == 5000 - 844 + 34)
        // Content shorter than the visible area: the only offset is −insetTop.
        #expect(ScrollToRow.offsetRange(viewportHeight: viewport, insets: insets, contentHeight: 300) == -44...(-44))
        #expect(ScrollToRow.targetOffset(rowMinY: 200, rowMaxY: 244, position: .bottom, currentOffset: 0,
                                         viewportHeight: viewport, insets: insets, contentHeight: 300) == -44)
        #expect(ScrollToRow.targetOffset(rowMinY: .nan, rowMaxY: 244, position: .top, currentOffset: 9_000,
                                         viewportHeight: viewport, insets: insets, contentHeight: content) == 5000 - 844 + 34)
    }

    @Test("scroll-to-row-near-edges.txt regression demo: 20 rows, grouped, 44 pt bar, values 0/10/19 at middle are fully visible")
    func seedRegressionDemo() {
        // The post's DemoTable: one section of 20 "Option n" rows in a grouped table (35 pt top padding as the
        // section header), pushed on a navigation controller whose 44 pt bar covers the top of a 320 × 460 screen.
        let layout = TableLayout(sections: [TableSection(title: "", headerHeight: 35, rows: (0..<20).map {
            TableRow(id: $0, title: "Option \($0)", height: 44)
        })], tableHeaderHeight: 0)
        let screenHeight = 460.0
        let bar = EdgeInsets(top: 44)
        var offsets: [Int: Double] = [:]
        for value in [0, 10, 19] {
            let frame = layout.rowFrame(at: IndexPath(section: 0, row: value))
            let offset = ScrollToRow.targetOffset(rowMinY: frame.minY, rowMaxY: frame.minY + frame.height, position: .middle,
                                                  currentOffset: -bar.top, viewportHeight: screenHeight, insets: bar,
                                                  contentHeight: layout.contentHeight)
            offsets[value] = offset
            let top = frame.minY - offset, bottom = frame.minY + frame.height - offset
            #expect(top >= bar.top && bottom <= screenHeight, "Option \(value) at \(top)..\(bottom)")
            #expect(layout.visibleRows(contentOffset: offset, viewportHeight: screenHeight)
                .contains { $0.id == value && $0.y >= bar.top && $0.y + $0.height <= screenHeight })
        }
        // Row 10 can be centred exactly between the bar and the screen bottom.
        #expect(35 + 10 * 44 + 22 - offsets[10]! == 44 + (460 - 44) / 2)
        // Row 19 cannot: the clamp stops at the end of the content, where it ends exactly at the screen bottom.
        #expect(offsets[19]! == layout.contentHeight - screenHeight)
        #expect(layout.rowFrame(at: IndexPath(section: 0, row: 19)).minY + 44 - offsets[19]! == screenHeight)
        // Row 0 cannot either: the clamp stops at the top, with the grouped padding below the bar.
        #expect(offsets[0]! == -44)
    }

    @Test("scroll-to-row-near-edges.txt: with a bottom bar too, the last row ends above it, not behind it")
    func lastRowAboveBottomBar() {
        let layout = EffectsFixtures.uniformLayout(sections: 1, rowsPerSection: 40)
        let insets = EdgeInsets(top: 44, bottom: 49)
        let last = layout.rowFrame(at: IndexPath(section: 0, row: 39))
        for position in ScrollPosition.allCases {
            let offset = ScrollToRow.targetOffset(rowMinY: last.minY, rowMaxY: last.minY + last.height, position: position,
                                                  currentOffset: -44, viewportHeight: 600, insets: insets,
                                                  contentHeight: layout.contentHeight)
            #expect(last.minY + last.height - offset == 600 - 49, "\(position)")
        }
    }
}
