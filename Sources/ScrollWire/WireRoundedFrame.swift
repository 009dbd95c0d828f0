import ScrollEngine

extension EffectFrame {
    /// This frame with every number rounded as a `frame` message writes it (`WirePrecision`:
    /// points to 0.01, alphas and `lift` to 0.001, `time` to 0.01 ms), i.e. the frame a client
    /// decodes from `ServerMessageEncoder.frame(self, …)`. Insets are not part of a frame
    /// message and are kept as they are.
    public func roundedForWire() -> EffectFrame {
        let pt = WirePrecision.points
        let fraction = WirePrecision.fraction
        var f = self
        f.time = WirePrecision.milliseconds.rounded(time)
        f.viewport = viewport.roundedForWire()
        f.contentOffset = pt.rounded(contentOffset)
        f.contentHeight = pt.rounded(contentHeight)
        f.rows = rows.map { $0.roundedForWire() }
        f.sectionHeaders = sectionHeaders.map { header in
            var h = header
            h.y = pt.rounded(header.y)
            h.height = pt.rounded(header.height)
            return h
        }
        f.backgroundOffset = pt.rounded(backgroundOffset)
        f.parallaxLayers = parallaxLayers.map { LayerPosition(index: $0.index, y: pt.rounded($0.y)) }
        f.indicator = IndicatorState(rect: indicator.rect.roundedForWire(), alpha: fraction.rounded(indicator.alpha))
        f.infoPanel = infoPanel.map { panel in
            var p = panel
            p.rect = panel.rect.roundedForWire()
            p.alpha = fraction.rounded(panel.alpha)
            return p
        }
        f.liftedRow = liftedRow.map { lifted in
            var l = lifted
            l.row = lifted.row.roundedForWire()
            l.lift = fraction.rounded(lifted.lift)
            return l
        }
        f.placeholder = placeholder.map { placeholder in
            var p = placeholder
            p.y = pt.rounded(placeholder.y)
            p.height = pt.rounded(placeholder.height)
            return p
        }
        return f
    }
}

extension VisibleRow {
    func roundedForWire() -> VisibleRow {
        var row = self
        row.y = WirePrecision.points.rounded(y)
        row.height = WirePrecision.points.rounded(height)
        return row
    }
}

extension Rect {
    func roundedForWire() -> Rect {
        let pt = WirePrecision.points
        return Rect(x: pt.rounded(origin.x), y: pt.rounded(origin.y), width: pt.rounded(size.width), height: pt.rounded(size.height))
    }
}

extension Size {
    func roundedForWire() -> Size {
        Size(width: WirePrecision.points.rounded(width), height: WirePrecision.points.rounded(height))
    }
}
