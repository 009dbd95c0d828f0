import Testing
@testable import ScrollEngine

@Suite struct ScrollSceneTests {
    @Test func startsAtRestAtTheTop() {
        let frame = ScrollScene(configuration: plainConfiguration()).frame(at: 0)
        #expect(frame.contentOffset == -44)
        #expect(frame.phase == .idle)
        #expect(frame.isAnimating == false)
        #expect(frame.contentHeight == 180 + 28 + 100 * 44)
        #expect(frame.lastInputID == nil)
    }

    @Test func dragFollowsTheFingerAfterTheSlop() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(600)))
        try s.send(10, .pointerMoved(point(595)))  // inside the slop: nothing moves
        #expect(s.offset(10) == -44)
        try s.send(20, .pointerMoved(point(580)))  // the drag begins here, anchored at 580
        try s.send(30, .pointerMoved(point(380)))
        #expect(s.offset(30) == -44 + 200)
        #expect(s.scene.frame(at: 30).lastInputID == 4)
    }

    @Test func releaseVelocityIsALeastSquaresFitOverTheLast100ms() {
        var estimator = VelocityEstimator()
        // An old slow segment, then 100 ms at exactly −2 pt/ms with some noise on one sample.
        estimator.add(time: 0, y: 800)
        estimator.add(time: 300, y: 790)
        for (i, t) in stride(from: 400.0, through: 500, by: 20).enumerated() {
            estimator.add(time: t, y: 700 - 2 * (t - 400) + (i == 2 ? 3 : 0))
        }
        // Least squares over t = 400…500 (the 0 and 300 ms samples are outside the window):
        // the +3 at t=440 tilts the slope by 3·(440−450)/Σ(t−450)² = −30/7000 pt/ms.
        let expected = (-2 + -30.0 / 7000) * 1000
        #expect(approx(estimator.velocity(at: 500), expected, 1e-9))
        // The last two points alone would say −2000 exactly; the fit differs.
        #expect(estimator.velocity(at: 500) != -2000)
        // A finger that rested for more than 100 ms before letting go has no velocity.
        #expect(estimator.velocity(at: 700) == 0)
    }

    @Test func flingDecaysToTheClosedFormRestingPoint() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(700)))
        for i in 1...6 { try s.send(Double(i) * 10, .pointerMoved(point(700 - Double(i) * 20))) }  // 2 pt/ms upwards
        try s.send(70, .pointerUp(point(560)))
        // Drag anchored at 680 (first move past the slop); at release −44 + (680 − 560) = 76, and every
        // sample of the last 100 ms lies on a 2 pt/ms line: velocity +2000 pt/s.
        let decay = DecayMotion(start: 76, velocity: 2000, rate: 0.998)
        #expect(s.scene.frame(at: 70).phase == .decelerating)
        #expect(approx(s.offset(70 + 250), decay.offset(after: 250)))
        let end = 70 + decay.duration
        #expect(approx(s.offset(end + 1000), decay.offset(after: decay.duration)))
        #expect(abs(s.offset(end + 1000) - decay.restingOffset) < 1)
        #expect(s.scene.frame(at: end + 1).phase == .idle)
    }

    @Test func fastDecelerationRateStopsSooner() throws {
        var normal = Script()
        var fast = Script(SceneConfiguration(sections: plainConfiguration().sections, decelerationRate: .fast))
        for script in [0, 1] {
            var s = script == 0 ? normal : fast
            try s.send(0, .pointerDown(point(700)))
            for i in 1...6 { try s.send(Double(i) * 10, .pointerMoved(point(700 - Double(i) * 20))) }
            try s.send(70, .pointerUp(point(560)))
            if script == 0 { normal = s } else { fast = s }
        }
        #expect(approx(fast.offset(10_000), DecayMotion(start: 76, velocity: 2000, rate: 0.99).offset(after: 10_000), 0.2))
        #expect(fast.offset(10_000) < normal.offset(10_000))
    }

    @Test func releasePastTheTopSpringsBack() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(300)))
        try s.send(10, .pointerMoved(point(320)))
        try s.send(20, .pointerMoved(point(520)))
        try s.send(400, .pointerUp(point(520)))  // held still: no fling
        #expect(s.offset(400) < -44)
        #expect(s.scene.frame(at: 410).phase == .bouncing)
        var previous = s.offset(400)
        for t in stride(from: 410.0, through: 2400, by: 10) {
            let offset = s.offset(t)
            #expect(offset >= previous && offset <= -44)  // monotonic, no overshoot
            previous = offset
        }
        #expect(s.offset(3000) == -44)
        #expect(s.scene.frame(at: 3000).isAnimating == false)
    }

    @Test func keysScrollByLinesAndPagesAnimated() throws {
        var s = Script()
        try s.send(0, .key(.arrowDown))
        #expect(s.scene.frame(at: 100).phase == .animating)
        #expect(s.offset(150) > -44 && s.offset(150) < -4)
        #expect(approx(s.offset(150), -44 + 40 * EaseMotion.curve(0.5)))
        #expect(s.offset(300) == -4)
        try s.send(1000, .key(.pageDown))
        // page = 844 − 44 − 0 − 40 overlap = 760
        #expect(s.offset(1300) == -4 + 760)
        try s.send(2000, .key(.end))
        #expect(s.offset(2300) == 3764)
        try s.send(3000, .key(.home))
        #expect(s.offset(3300) == -44)
        try s.send(4000, .key(.arrowUp))  // already at the top: clamped
        #expect(s.offset(4300) == -44)
    }

    @Test func wheelNotchesAccumulateTheirTarget() throws {
        var s = Script()
        try s.send(0, .wheel(dx: 0, dy: 100, mode: .pixel))
        try s.send(50, .wheel(dx: 0, dy: 100, mode: .pixel))
        try s.send(100, .wheel(dx: 0, dy: 3, mode: .line))  // 3 lines = 120 pt
        #expect(s.scene.frame(at: 200).phase == .animating)
        #expect(s.offset(400) == -44 + 320)
        #expect(s.scene.frame(at: 400).isAnimating)  // the indicator still fades out
        #expect(s.scene.frame(at: 800).isAnimating == false)
        // A notch after the animation ended starts from where the content is.
        try s.send(1000, .wheel(dx: 0, dy: -1, mode: .page))
        #expect(s.offset(1300) == -44)  // 276 − 760 is past the top: clamped
    }

    @Test func trackpadPixelsAreFollowedDirectlyAndSpringBackAfterTheStream() throws {
        var s = Script()
        try s.send(0, .wheel(dx: 0, dy: 12.5, mode: .pixel))
        try s.send(16, .wheel(dx: 0, dy: 7.5, mode: .pixel))
        #expect(s.offset(16) == -44 + 20)  // no added momentum
        #expect(s.offset(100) == -44 + 20)
        try s.send(200, .wheel(dx: 0, dy: -120.25, mode: .pixel))  // 100.25 pt past the top
        #expect(approx(s.offset(200), -44 + RubberBand.offset(distance: -100.25, dimension: 844)))
        #expect(s.scene.frame(at: 250).phase == .tracking)
        #expect(s.offset(319) == s.offset(200))  // still the stream
        #expect(s.scene.frame(at: 330).phase == .bouncing)  // 120 ms without events: spring back
        #expect(s.offset(2500) == -44)
    }

    @Test func scrollToRowUsesTheSeedFix() throws {
        // scroll-to-row-near-edges.txt: the last row at Top cannot go further than the bottom of the content.
        var s = Script()
        try s.send(0, .scrollToRow(IndexPath(section: 0, row: 99), position: .top, animated: false))
        #expect(s.offset(0) == 3764)
        try s.send(10, .scrollToRow(IndexPath(section: 0, row: 10), position: .top, animated: true))
        #expect(s.scene.frame(at: 100).phase == .animating)
        // Row 10 top = 180 + 28 + 440 = 648; Top puts it under the 44 pt bar: 604.
        #expect(s.offset(310) == 604)
    }

    @Test func reducedMotionMakesAnimationsInstantAndFlingsStop() throws {
        var s = Script()
        try s.send(0, .reducedMotion(true))
        try s.send(10, .key(.pageDown))
        #expect(s.offset(10) == -44 + 760)
        try s.send(20, .pointerDown(point(700)))
        for i in 1...6 { try s.send(20 + Double(i) * 10, .pointerMoved(point(700 - Double(i) * 20))) }
        try s.send(90, .pointerUp(point(560)))
        #expect(s.offset(90) == s.offset(5000))
    }

    @Test func resizeKeepsTheOffsetInTheNewRange() throws {
        var s = Script()
        try s.send(0, .key(.end))
        #expect(s.offset(400) == 3764)
        try s.send(500, .resize(Size(width: 390, height: 1044)))
        #expect(s.offset(500) == 3564)
        #expect(s.scene.frame(at: 500).viewport.height == 1044)
    }

    @Test func isAnimatingBecomesFalseOnceEverythingSettles() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(700)))
        for i in 1...6 { try s.send(Double(i) * 10, .pointerMoved(point(700 - Double(i) * 20))) }
        try s.send(70, .pointerUp(point(560)))
        let decayEnd = 70 + DecayMotion(start: 76, velocity: 2000, rate: 0.998).duration
        #expect(s.scene.frame(at: decayEnd - 1).isAnimating)
        // Panel: lingers 1 s after scrolling stops, then fades 0.3 s.
        #expect(s.scene.frame(at: decayEnd + 1200).isAnimating)
        #expect(s.scene.frame(at: decayEnd + 1301).isAnimating == false)
        #expect(s.scene.frame(at: decayEnd + 1301).infoPanel == nil)
        #expect(s.scene.frame(at: decayEnd + 1301).indicator.alpha == 0)
    }
}

/// info-panel-and-row-moving.txt (Path 2): the panel appears when dragging begins, stays about a
/// second after scrolling stops, and fades out; the indicator fades in when scrolling starts.
@Suite struct InfoPanelTimingTests {
    @Test func panelFadesInOnDragLingersThenFadesOut() throws {
        var s = Script()
        try s.send(0, .pointerDown(point(700)))
        #expect(s.scene.frame(at: 0).infoPanel == nil)  // no drag yet
        try s.send(100, .pointerMoved(point(650)))      // drag begins
        #expect(approx(try #require(s.scene.frame(at: 200).infoPanel).alpha, 0.5))  // 0.2 s fade in
        #expect(approx(s.scene.frame(at: 150).indicator.alpha, 0.5))              // 0.1 s fade in
        #expect(s.scene.frame(at: 5000).infoPanel?.alpha == 1)                     // held while dragging
        try s.send(5000, .pointerUp(point(650)))       // no fling: scrolling stops now
        #expect(s.scene.frame(at: 6000).infoPanel?.alpha == 1)       // lingers ~1 s
        #expect(approx(try #require(s.scene.frame(at: 6150).infoPanel).alpha, 0.5))  // 0.3 s fade out
        #expect(s.scene.frame(at: 6300).infoPanel == nil)
        #expect(approx(s.scene.frame(at: 5150).indicator.alpha, 0.5))
        let panel = try #require(s.scene.frame(at: 5500).infoPanel)
        #expect(panel.title == "Group 0")
        let indicator = s.scene.frame(at: 5500).indicator.rect
        #expect(panel.rect.maxX <= indicator.minX)
    }

    @Test func wheelAloneShowsTheIndicatorButNotThePanel() throws {
        var s = Script()
        try s.send(0, .key(.pageDown))
        #expect(s.scene.frame(at: 100).indicator.alpha == 1)
        #expect(s.scene.frame(at: 100).infoPanel == nil)
    }
}
