import Testing
@testable import ScrollEngine

/// Grant Paul's rubber band: (1 − 1/(x·0.55/d + 1))·d.
@Suite struct RubberBandTests {
    @Test func formulaByHand() {
        // x = 100, d = 844: 1/(55/844 + 1) = 844/899 → (1 − 844/899)·844 = 55·844/899
        #expect(approx(RubberBand.offset(distance: 100, dimension: 844), 55.0 * 844 / 899))
        #expect(approx(RubberBand.offset(distance: -100, dimension: 844), -55.0 * 844 / 899))
        #expect(RubberBand.offset(distance: 0, dimension: 844) == 0)
        // It never reaches d however far you pull.
        #expect(RubberBand.offset(distance: 1e9, dimension: 844) < 844)
    }

    @Test func inverseRoundTrips() {
        for x in [-2000.0, -300, -1, 0, 0.5, 10, 250, 5000] {
            let y = RubberBand.offset(distance: x, dimension: 600)
            #expect(approx(RubberBand.distance(forOffset: y, dimension: 600), x, 1e-6))
        }
    }

    @Test func slopeIsTheDerivative() {
        let h = 1e-5
        for x in [0.0, 50, 400] {
            let numeric = (RubberBand.offset(distance: x + h, dimension: 844) - RubberBand.offset(distance: x - h, dimension: 844)) / (2 * h)
            #expect(approx(RubberBand.slope(distance: x, dimension: 844), numeric, 1e-6))
        }
        #expect(RubberBand.slope(distance: 0, dimension: 844) == 0.55)
    }

    @Test func displayedIsIdentityInsideRangeAndBandedOutside() {
        let range = -44.0...3764.0
        #expect(RubberBand.displayed(raw: 100, range: range, dimension: 844) == 100)
        #expect(approx(RubberBand.displayed(raw: -144, range: range, dimension: 844), -44 - 55.0 * 844 / 899))
        #expect(approx(RubberBand.raw(displayed: RubberBand.displayed(raw: 3900, range: range, dimension: 844),
                                      range: range, dimension: 844), 3900, 1e-6))
    }

    @Test func dragPastTheTopShowsTheRubberBand() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(300)))
        try s.send(10, .pointerMoved(point(320)))  // beyond the slop: the drag starts here
        try s.send(20, .pointerMoved(point(420)))  // 100 pt further down: 100 pt past the top
        #expect(approx(s.offset(20), -44 - 55.0 * 844 / 899))
        #expect(s.scene.frame(at: 20).phase == .tracking)
    }
}
