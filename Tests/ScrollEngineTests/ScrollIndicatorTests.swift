import Testing
@testable import ScrollEngine

@Suite("ScrollIndicator")
struct ScrollIndicatorTests {
    let viewport = Size(width: 390, height: 844)
    let insets = EdgeInsets(top: 44)
    // Visible area 800 pt, track 794 pt from y 47 to 841.

    func rect(_ offset: Double, content: Double = 8000) -> Rect {
        ScrollIndicator.rect(contentOffset: offset, contentHeight: content, viewport: viewport, insets: insets)
    }

    @Test("indicator length is track × visible / content, 3 pt thick, 3 pt from the right edge")
    func proportionalLength() {
        #expect(EffectsFixtures.isClose(ScrollIndicator.restingLength(contentHeight: 8000, viewport: viewport, insets: insets),
                                        794 * 800 / 8000.0))
        let top = rect(-44)
        #expect(top.minX == 384 && top.width == 3)
        #expect(top.minY == 47)
        #expect(EffectsFixtures.isClose(top.height, 79.4))
    }

    @Test("indicator travels the whole track as the content travels its whole range")
    func travel() {
        let maxOffset = 8000.0 - 844
        #expect(EffectsFixtures.isClose(rect(maxOffset).maxY, 841))
        let middle = rect((maxOffset - 44) / 2)
        #expect(EffectsFixtures.isClose(middle.midY, (47 + 841) / 2.0))
    }

    @Test("indicator has a 36 pt minimum on long content, and fills the track when content fits")
    func minimumAndShortContent() {
        #expect(ScrollIndicator.restingLength(contentHeight: 1_000_000, viewport: viewport, insets: insets) == 36)
        #expect(rect(-44, content: 1_000_000).height == 36)
        #expect(ScrollIndicator.restingLength(contentHeight: 300, viewport: viewport, insets: insets) == 794)
        #expect(rect(-44, content: 300) == Rect(x: 384, y: 47, width: 3, height: 794))
    }

    @Test("info-panel-and-row-moving.txt: the indicator shrinks by the overscroll at an edge down to a dot")
    func shrinksToDot() {
        let pulled = rect(-44 - 20)
        #expect(pulled.minY == 47)
        #expect(EffectsFixtures.isClose(pulled.height, 79.4 - 20))
        #expect(rect(-44 - 500).height == ScrollIndicator.dotLength)
        let maxOffset = 8000.0 - 844
        let pushed = rect(maxOffset + 30)
        #expect(EffectsFixtures.isClose(pushed.height, 79.4 - 30))
        #expect(EffectsFixtures.isClose(pushed.maxY, 841))
        let dot = rect(maxOffset + 5000)
        #expect(dot.height == 8 && EffectsFixtures.isClose(dot.maxY, 841))
        // Shrinking is monotonic with the overscroll.
        #expect(rect(-50).height > rect(-60).height)
        #expect(rect(.nan) == rect(-44))
    }
}
