import Testing
@testable import ScrollEngine

@Suite("InfoPanel")
struct InfoPanelTests {
    let viewport = Size(width: 390, height: 844)
    let insets = EdgeInsets(top: 44)

    func panel(_ indicator: Rect, resting: Double) -> Rect {
        InfoPanel.rect(indicator: indicator, restingIndicatorLength: resting, viewport: viewport, insets: insets)
    }

    @Test("info-panel-and-row-moving.txt: the panel sits left of the indicator, centred on it")
    func centred() {
        let indicator = Rect(x: 384, y: 300, width: 3, height: 100)
        let rect = panel(indicator, resting: 100)
        #expect(rect.maxX == indicator.minX - InfoPanel.gap)
        #expect(rect.midY == indicator.midY)
        #expect(rect.size == InfoPanel.size)
        // The example frame of docs/protocol.md.
        #expect(panel(Rect(x: 384, y: 61.2, width: 3, height: 36), resting: 36)
            == Rect(x: 290, y: 55.2, width: 88, height: 48))
    }

    @Test("info-panel-and-row-moving.txt: kept centred while the indicator shrinks but is taller than panel + 2")
    func centredWhileShrinking() {
        for height in [180.0, 120, 51] {
            let top = Rect(x: 384, y: 47, width: 3, height: height)
            #expect(panel(top, resting: 200).midY == top.midY, "top, \(height)")
            let bottom = Rect(x: 384, y: 841 - height, width: 3, height: height)
            #expect(panel(bottom, resting: 200).midY == bottom.midY, "bottom, \(height)")
        }
    }

    @Test("info-panel-and-row-moving.txt: at the bottom edge a small indicator gets a bottom-aligned panel")
    func bottomEdge() {
        for height in [50.0, 30, 8] {
            let indicator = Rect(x: 384, y: 841 - height, width: 3, height: height)
            let rect = panel(indicator, resting: 200)
            #expect(rect.maxY == indicator.maxY, "\(height)")
            #expect(rect.minY >= insets.top && rect.maxY <= viewport.height)
        }
    }

    @Test("info-panel-and-row-moving.txt: at the top edge a small indicator gets a top-aligned panel")
    func topEdge() {
        for height in [50.0, 30, 8] {
            let indicator = Rect(x: 384, y: 47, width: 3, height: height)
            let rect = panel(indicator, resting: 200)
            #expect(rect.minY == indicator.minY, "\(height)")
            #expect(rect.minY >= insets.top && rect.maxY <= viewport.height)
        }
    }

    @Test("info panel stays between the insets even when centring would push it under the bar")
    func keptOnScreen() {
        let rect = panel(Rect(x: 384, y: 47, width: 3, height: 36), resting: 36)
        #expect(rect.minY == insets.top)
    }

    @Test("info-panel-and-row-moving.txt: the text is the group of the row under the indicator's centre")
    func textUnderIndicator() {
        let layout = TableLayout(sections: DemoScene.sections(rowCount: 3000), tableHeaderHeight: 180)
        func text(at offset: Double) -> (title: String, detail: String) {
            let indicator = ScrollIndicator.rect(contentOffset: offset, contentHeight: layout.contentHeight,
                                                 viewport: viewport, insets: insets)
            return InfoPanel.text(layout: layout, indicator: indicator, viewport: viewport, insets: insets)
        }
        // At the top the visible rows are the newest day's.
        #expect(text(at: -44).title == "Mon 3 Nov")
        #expect(text(at: -44 - 200).title == "Mon 3 Nov")
        // Anywhere, the panel names the row in the middle of the visible area, even with the indicator at its minimum.
        for flat in stride(from: 10, to: 2990, by: 331) {
            var remaining = flat, path = IndexPath(section: 0, row: 0)
            for (s, section) in layout.sections.enumerated() {
                if remaining < section.rows.count { path = IndexPath(section: s, row: remaining); break }
                remaining -= section.rows.count
            }
            let frame = layout.rowFrame(at: path)
            let offset = frame.minY + frame.height / 2 - 44 - 800 / 2
            let row = layout.row(at: path)
            #expect(text(at: offset) == (row.group, row.detail), "row \(flat)")
        }
        // Past the bottom edge (indicator shrinking) it keeps naming the middle of the last screen.
        let maxOffset = layout.contentHeight - 844
        let middleOfLastScreen = layout.row(at: layout.indexPath(atContentY: maxOffset + 44 + 400)!)
        #expect(text(at: maxOffset) == (middleOfLastScreen.group, middleOfLastScreen.detail))
        #expect(text(at: maxOffset + 300) == (middleOfLastScreen.group, middleOfLastScreen.detail))
        #expect(InfoPanel.text(layout: TableLayout(sections: [], tableHeaderHeight: 0), indicator: .zero,
                               viewport: viewport, insets: insets) == ("", ""))
    }
}
