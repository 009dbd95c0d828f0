/// Frame assembly: everything the page draws at one moment, from the state and the time.
extension ScrollScene {
    func render(at time: Double) -> EffectFrame {
        let c = configuration
        let viewport = c.viewport, insets = c.insets
        let offset = motion.offset(at: time)
        let contentHeight = layout.contentHeight
        var nextChange = motion.lastChange

        var rows: [VisibleRow]
        let headers: [VisibleSectionHeader]
        var liftedRow: LiftedRowState?
        var placeholder: PlaceholderState?
        if case .lifted(let lifted) = gesture {
            // The placeholder hops as the snapshot passes neighbours; the table is drawn with the
            // row already moved there, and the row itself is drawn as the snapshot.
            let destination = placeholderIndexPath(for: lifted, at: time)
            let shown = layoutWhileLifted(lifted, destination: destination)
            rows = shown.visibleRows(contentOffset: offset, viewportHeight: viewport.height)
            rows.removeAll { $0.id == lifted.row.id }
            headers = shown.sectionHeaders(contentOffset: offset, viewportHeight: viewport.height, topInset: insets.top)
            let frame = shown.rowFrame(at: destination)
            placeholder = PlaceholderState(indexPath: destination, y: frame.minY - offset, height: frame.height)
            liftedRow = LiftedRowState(
                row: Self.visibleRow(lifted.row, at: destination, y: lifted.fingerY - lifted.grabOffset, height: frame.height),
                lift: liftAmount(lifted, at: time), isSettling: false)
            if !reducedMotion { nextChange = max(nextChange, lifted.liftTime + Self.liftDuration) }
        } else {
            rows = layout.visibleRows(contentOffset: offset, viewportHeight: viewport.height)
            headers = layout.sectionHeaders(contentOffset: offset, viewportHeight: viewport.height, topInset: insets.top)
            if let settle, time < settle.end {
                rows.removeAll { $0.id == settle.row.id }
                let progress = EaseMotion.curve(min(max((time - settle.start) / settle.duration, 0), 1))
                let landingY = settle.toContentY - offset
                let y = settle.fromY + (landingY - settle.fromY) * progress
                let height = layout.rowFrame(at: settle.indexPath).height
                liftedRow = LiftedRowState(row: Self.visibleRow(settle.row, at: settle.indexPath, y: y, height: height),
                                           lift: settle.fromLift * (1 - progress), isSettling: true)
                placeholder = PlaceholderState(indexPath: settle.indexPath, y: landingY, height: height)
                nextChange = max(nextChange, settle.end)
            }
        }
        if let due = pendingLiftTime { nextChange = max(nextChange, due) }

        // background-scroll-indicator*.txt, with inset-adjusted values so the seed's formula holds.
        var backgroundOffset = 0.0
        if let background = c.background {
            backgroundOffset = BackgroundScrollIndicator.offset(
                tableOffset: offset + insets.top, tableContentHeight: contentHeight + insets.top + insets.bottom,
                tableFrameHeight: viewport.height, backgroundContentHeight: background.height,
                backgroundFrameHeight: viewport.height, current: 0)
        }
        // parallax-header.txt: overscroll is 0 at rest, negative when pulled down.
        let layers = ParallaxHeader.positions(c.parallaxLayers, overscroll: offset + insets.top,
                                              topInset: insets.top, reducedMotion: reducedMotion)

        let indicatorRect = ScrollIndicator.rect(contentOffset: offset, contentHeight: contentHeight,
                                                 viewport: viewport, insets: insets)
        let indicator = IndicatorState(rect: indicatorRect, alpha: indicatorFade.alpha(at: time))
        var infoPanel: InfoPanelState?
        let panelAlpha = panelFade.alpha(at: time)
        if panelAlpha > 0 {
            let resting = ScrollIndicator.restingLength(contentHeight: contentHeight, viewport: viewport, insets: insets)
            let rect = InfoPanel.rect(indicator: indicatorRect, restingIndicatorLength: resting, viewport: viewport, insets: insets)
            let text = InfoPanel.text(layout: layout, indicator: indicatorRect, viewport: viewport, insets: insets)
            infoPanel = InfoPanelState(rect: rect, alpha: panelAlpha, title: text.title, detail: text.detail)
        }
        nextChange = max(nextChange, indicatorFade.lastChange, panelFade.lastChange)

        return EffectFrame(
            time: time, lastInputID: lastInputID, phase: motion.phase(at: time), isAnimating: time < nextChange,
            viewport: viewport, insets: insets, contentOffset: offset, contentHeight: contentHeight,
            rows: rows, sectionHeaders: headers, backgroundOffset: backgroundOffset, parallaxLayers: layers,
            indicator: indicator, infoPanel: infoPanel, liftedRow: liftedRow, placeholder: placeholder)
    }

    private static func visibleRow(_ row: TableRow, at indexPath: IndexPath, y: Double, height: Double) -> VisibleRow {
        VisibleRow(indexPath: indexPath, id: row.id, y: y, height: height, title: row.title,
                   subtitle: row.subtitle, detail: row.detail)
    }
}
