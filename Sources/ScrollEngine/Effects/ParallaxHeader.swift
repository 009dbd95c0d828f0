/// Path's parallax header (parallax-header.txt): image layers behind a transparent 180 pt table
/// header view, placed above their natural spot (the seed's −150 pt) so that pulling the table
/// down reveals them slowly, while scrolling up takes them away with the content.
public enum ParallaxHeader {
    /// parallax-header.txt. `overscroll` is contentOffset + insets.top (0 at rest, < 0 when pulled down).
    /// Layer top (viewport y) = insets.top + layer.restingY − (overscroll < 0 ? overscroll × pullFactor : overscroll × scrollFactor).
    /// reducedMotion: no parallax (layers move rigidly with the content: both factors 1).
    ///
    /// The seed's single image is `restingY` −150, pull factor 1/3 (`_headerImageYOffset − scrollOffset / 3`)
    /// and scroll factor 1 (`_headerImageYOffset − scrollOffset`). Layers with other factors give the
    /// multi-layer parallax the post suggests: smaller factors feel further away. A non-finite
    /// overscroll is taken as 0 (the resting place).
    public static func layerY(_ layer: ParallaxLayer, overscroll: Double, topInset: Double, reducedMotion: Bool) -> Double {
        let travel = overscroll.isFinite ? overscroll : 0
        let pullFactor = reducedMotion ? 1 : layer.pullFactor
        let scrollFactor = reducedMotion ? 1 : layer.scrollFactor
        let shift = travel < 0 ? travel * pullFactor : travel * scrollFactor
        return topInset + layer.restingY - shift
    }

    /// Every layer's top, in the order given (`index` is the layer's position in `layers`).
    public static func positions(_ layers: [ParallaxLayer], overscroll: Double, topInset: Double, reducedMotion: Bool) -> [LayerPosition] {
        var result: [LayerPosition] = []
        result.reserveCapacity(layers.count)
        for (index, layer) in layers.enumerated() {
            result.append(LayerPosition(
                index: index, y: layerY(layer, overscroll: overscroll, topInset: topInset, reducedMotion: reducedMotion)))
        }
        return result
    }
}
