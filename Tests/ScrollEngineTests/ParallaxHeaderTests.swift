import Testing
@testable import ScrollEngine

@Suite("ParallaxHeader")
struct ParallaxHeaderTests {
    /// The seed's image: 150 pt above its natural place, a third of the pull, all of the scroll.
    let seedLayer = ParallaxLayer(image: "header.png", size: Size(width: 320, height: 330))

    @Test("parallax-header.txt: y0 − offset/3 when pulled down")
    func pulled() {
        let close = EffectsFixtures.isClose
        #expect(close(ParallaxHeader.layerY(seedLayer, overscroll: -90, topInset: 0, reducedMotion: false), -150 + 30, 1e-9))
        #expect(close(ParallaxHeader.layerY(seedLayer, overscroll: -90, topInset: 44, reducedMotion: false), 44 - 150 + 30, 1e-9))
        // At a third of the pull, the image moves 1 pt for every 3 pt the content is pulled.
        let a = ParallaxHeader.layerY(seedLayer, overscroll: -30, topInset: 0, reducedMotion: false)
        let b = ParallaxHeader.layerY(seedLayer, overscroll: -60, topInset: 0, reducedMotion: false)
        #expect(close(b - a, 10, 1e-9))
    }

    @Test("parallax-header.txt: y0 − offset when scrolled up or at rest")
    func scrolled() {
        #expect(ParallaxHeader.layerY(seedLayer, overscroll: 0, topInset: 44, reducedMotion: false) == 44 - 150)
        #expect(ParallaxHeader.layerY(seedLayer, overscroll: 60, topInset: 0, reducedMotion: false) == -210)
        #expect(ParallaxHeader.layerY(seedLayer, overscroll: .nan, topInset: 0, reducedMotion: false) == -150)
    }

    @Test("parallax-header.txt multi-layer: each layer follows its own factors, in order")
    func multiLayer() {
        let layers = DemoScene.configuration(rowCount: 10).parallaxLayers
        let pulled = ParallaxHeader.positions(layers, overscroll: -60, topInset: 44, reducedMotion: false)
        #expect(pulled.map(\.index) == [0, 1, 2])
        let base: Double = 44 - 150
        let expected: [Double] = [base + 12, base + 20, base + 30]
        #expect(zip(pulled.map(\.y), expected).allSatisfy { EffectsFixtures.isClose($0, $1, tolerance: 1e-9) })
        let scrolled = ParallaxHeader.positions(layers, overscroll: 100, topInset: 44, reducedMotion: false)
        let scrolledExpected: [Double] = [base - 60, base - 100, base - 100]
        #expect(zip(scrolled.map(\.y), scrolledExpected).allSatisfy { EffectsFixtures.isClose($0, $1, tolerance: 1e-9) })
        // Further layers (smaller factors) move less: depth.
        #expect(pulled[0].y < pulled[1].y && pulled[1].y < pulled[2].y)
    }

    @Test("parallax-header.txt with reduced motion: every layer moves rigidly with the content")
    func reducedMotion() {
        let layers = DemoScene.configuration(rowCount: 10).parallaxLayers
        for overscroll in [-80.0, 0, 120] {
            let ys = ParallaxHeader.positions(layers, overscroll: overscroll, topInset: 44, reducedMotion: true).map(\.y)
            let expected = layers.map { 44 + $0.restingY - overscroll }
            #expect(zip(ys, expected).allSatisfy { EffectsFixtures.isClose($0, $1, tolerance: 1e-9) }, "overscroll \(overscroll)")
        }
    }
}
