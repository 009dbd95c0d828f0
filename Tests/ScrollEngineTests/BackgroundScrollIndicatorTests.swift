import Testing
@testable import ScrollEngine

@Suite("BackgroundScrollIndicator")
struct BackgroundScrollIndicatorTests {
    @Test("background-scroll-indicator-complete-code.txt: offset is tableOffset × diffScroll / diffTableView")
    func proportional() {
        // diffTableView = 1000 − 500, diffScroll = 3000 − 500: the background moves 5 pt per table pt.
        func offset(_ table: Double) -> Double {
            BackgroundScrollIndicator.offset(tableOffset: table, tableContentHeight: 1000, tableFrameHeight: 500,
                                             backgroundContentHeight: 3000, backgroundFrameHeight: 500, current: -1)
        }
        #expect(offset(0) == 0)
        #expect(offset(100) == 500)
        // Both reach their ends together.
        #expect(offset(500) == 2500)
        // Rubber-banding past an edge overshoots in proportion (no clamp in the post's code).
        #expect(offset(-20) == -100)
    }

    @Test("background-scroll-indicator-complete-code.txt: guarded when content is not taller than the frame")
    func guardWhenShort() {
        for contentHeight in [400.0, 500.0] {
            let value = BackgroundScrollIndicator.offset(
                tableOffset: 50, tableContentHeight: contentHeight, tableFrameHeight: 500,
                backgroundContentHeight: 3000, backgroundFrameHeight: 500, current: 77)
            #expect(value == 77, "content \(contentHeight)")
        }
        #expect(BackgroundScrollIndicator.offset(tableOffset: .nan, tableContentHeight: 1000, tableFrameHeight: 500,
                                                 backgroundContentHeight: 3000, backgroundFrameHeight: 500, current: 9) == 9)
    }

    @Test("background-scroll-indicator.txt: inset-adjusted values make the background span its whole range")
    func insetAdjusted() {
        // As ScrollScene calls it: offset + insets.top and content + insets.top + insets.bottom.
        let insets = EdgeInsets(top: 44, bottom: 34), viewport = 844.0, content = 10_000.0, backgroundHeight = 6000.0
        let range = ScrollToRow.offsetRange(viewportHeight: viewport, insets: insets, contentHeight: content)
        func background(at offset: Double) -> Double {
            BackgroundScrollIndicator.offset(tableOffset: offset + insets.top,
                                             tableContentHeight: content + insets.top + insets.bottom,
                                             tableFrameHeight: viewport, backgroundContentHeight: backgroundHeight,
                                             backgroundFrameHeight: viewport, current: 0)
        }
        #expect(background(at: range.lowerBound) == 0)
        #expect(EffectsFixtures.isClose(background(at: range.upperBound), backgroundHeight - viewport, tolerance: 1e-6))
    }
}
