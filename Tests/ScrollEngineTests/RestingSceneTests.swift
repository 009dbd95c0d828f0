import Testing
@testable import ScrollEngine

/// A scene made at rest at a given offset: how a stored room comes back where it stopped.
@Suite("Scene at rest at an offset")
struct RestingSceneTests {
    @Test func itStartsAtRestAtTheOffsetItWasGiven() throws {
        let scene = ScrollScene(configuration: plainConfiguration(), restingAt: 1_234.5)
        let frame = scene.frame(at: 0)
        #expect(frame.contentOffset == 1_234.5)
        #expect(!frame.isAnimating)
        #expect(scene.frame(at: 5_000).contentOffset == 1_234.5, "nothing moves it")
        #expect(frame.rows.first.map { $0.y <= 0 && $0.y + $0.height > 0 } == true, "the rows drawn are those at the offset")
    }

    @Test func anOffsetPastEitherEndIsClampedToTheContent() {
        // plainConfiguration: offsets −44…3764.
        #expect(ScrollScene(configuration: plainConfiguration(), restingAt: 99_999).frame(at: 0).contentOffset == 3_764)
        #expect(ScrollScene(configuration: plainConfiguration(), restingAt: -500).frame(at: 0).contentOffset == -44)
        let short = plainConfiguration(rows: 3)
        #expect(ScrollScene(configuration: short, restingAt: 800).frame(at: 0).contentOffset == -44,
                "a table shorter than the viewport only rests at the top")
    }

    @Test func aNonFiniteOffsetIsTheTop() {
        for offset in [Double.nan, .infinity, -.infinity] {
            #expect(ScrollScene(configuration: plainConfiguration(), restingAt: offset).frame(at: 0).contentOffset == -44)
        }
    }

    @Test func itBehavesLikeTheSameSceneScrolledThereAndLeftToRest() throws {
        // Scroll a scene with a wheel and let it settle, then build one at rest at that offset:
        // the next input moves both the same way.
        var script = Script()
        try script.send(0, .wheel(dx: 0, dy: 900, mode: .pixel))
        let rested = script.offset(10_000)
        var restored = Script()
        restored.scene = ScrollScene(configuration: plainConfiguration(), restingAt: rested)
        try script.send(10_000, .wheel(dx: 0, dy: 120, mode: .pixel))
        try restored.send(10_000, .wheel(dx: 0, dy: 120, mode: .pixel))
        for t in stride(from: 10_000.0, through: 11_000, by: 100) {
            #expect(approx(script.offset(t), restored.offset(t), 1e-6))
        }
    }
}

/// Taking a row move back: the scene in a given order, at rest where it was.
@Suite("Scene reordered at rest")
struct ReorderedAtRestTests {
    @Test func aDroppedRowGoesBackAndTheContentStaysWhereItWas() throws {
        var script = Script()
        try script.send(0, .wheel(dx: 0, dy: 400, mode: .pixel))
        let before = script.scene.configuration.rowOrder
        // Lift the row under y = 300, carry it 3 rows down and drop it: a move.
        try script.send(2_000, .longPressBegan(point(300)))
        try script.send(2_050, .longPressMoved(point(300 + 44 * 3)))
        let changes = try script.send(2_100, .longPressEnded(point(300 + 44 * 3)))
        #expect(changes.count == 1)
        #expect(script.scene.configuration.rowOrder != before)
        let offset = script.offset(2_100)

        let reverted = try #require(script.scene.reorderedAtRest(before, at: 2_100))
        #expect(reverted.configuration.rowOrder == before)
        let frame = reverted.frame(at: 2_100)
        #expect(frame.contentOffset == offset)
        #expect(!frame.isAnimating && frame.liftedRow == nil, "the dropped row's settle animation is gone too")
        #expect(reverted.frame(at: 9_000).contentOffset == offset)
    }

    @Test func aRowHeldMidMoveIsPutDownInTheGivenOrder() throws {
        var script = Script()
        let order = script.scene.configuration.rowOrder
        try script.send(0, .longPressBegan(point(300)))
        try script.send(50, .longPressMoved(point(500)))
        #expect(script.scene.frame(at: 50).liftedRow != nil)
        let reverted = try #require(script.scene.reorderedAtRest(order, at: 60))
        #expect(reverted.frame(at: 60).liftedRow == nil)
        #expect(reverted.configuration.rowOrder == order)
        // The gesture is over: a new one may begin, no earlier than the last input.
        var next = reverted
        #expect(throws: InputRejection.self) { try next.apply(InputEvent(id: 9, time: 40, kind: .wheel(dx: 0, dy: 10, mode: .pixel))) }
        _ = try next.apply(InputEvent(id: 9, time: 70, kind: .longPressBegan(point(300))))
    }

    @Test func reducedMotionCarriesOver() throws {
        var script = Script()
        try script.send(0, .reducedMotion(true))
        let reverted = try #require(script.scene.reorderedAtRest(script.scene.configuration.rowOrder, at: 10))
        #expect(reverted.reducedMotion)
    }

    @Test func anOrderThatDoesNotFitIsRefused() {
        let scene = ScrollScene(configuration: plainConfiguration(rows: 3))
        #expect(scene.reorderedAtRest([[0, 1]], at: 0) == nil)
        #expect(scene.reorderedAtRest([[0, 1, 7]], at: 0) == nil)
        #expect(scene.reorderedAtRest([[2, 1, 0]], at: 0)?.configuration.rowOrder == [[2, 1, 0]])
    }
}

/// `fresh(restingAt:)`: a host's template scene copied into a new one, its storage shared.
@Suite("A fresh scene from another")
struct FreshSceneTests {
    /// Frames of `scene` over a drag, a fling, a resize and a row move, from `start`.
    func frames(_ scene: ScrollScene, from start: Double) throws -> [EffectFrame] {
        var scene = scene
        var frames: [EffectFrame] = []
        var id: UInt64 = 100
        func send(_ t: Double, _ kind: InputKind) throws {
            id += 1
            _ = try scene.apply(InputEvent(id: id, time: start + t, kind: kind))
            frames.append(scene.frame(at: start + t + 5))
        }
        try send(0, .pointerDown(Point(x: 200, y: 600)))
        for step in 1...20 { try send(Double(step) * 16, .pointerMoved(Point(x: 200, y: 600 - Double(step) * 20))) }
        try send(340, .pointerUp(Point(x: 200, y: 200)))
        try send(3_000, .resize(Size(width: 320, height: 500)))
        try send(4_000, .longPressBegan(Point(x: 100, y: 300)))
        try send(4_700, .longPressMoved(Point(x: 100, y: 420)))
        try send(4_800, .longPressEnded(Point(x: 100, y: 420)))
        for t in stride(from: 4_800.0, through: 6_000, by: 100) { frames.append(scene.frame(at: start + t)) }
        return frames
    }

    @Test("it is the scene the initialisers give, whatever the template went through")
    func sameAsBuilt() throws {
        var template = ScrollScene(configuration: plainConfiguration())
        // The template scrolled, resized and moved a row: a fresh one has its current configuration
        // and none of its motion or gesture.
        _ = try template.apply(InputEvent(id: 1, time: 0, kind: .wheel(dx: 0, dy: 700, mode: .pixel)))
        _ = try template.apply(InputEvent(id: 2, time: 50, kind: .resize(Size(width: 360, height: 700))))
        _ = try template.apply(InputEvent(id: 3, time: 5_000, kind: .longPressBegan(Point(x: 100, y: 300))))
        _ = try template.apply(InputEvent(id: 4, time: 5_700, kind: .longPressEnded(Point(x: 100, y: 500))))
        let configuration = template.configuration
        for offset in [nil, 0, 1_234.5, 99_999, -500, .nan] as [Double?] {
            let built = offset.map { ScrollScene(configuration: configuration, restingAt: $0) } ?? ScrollScene(configuration: configuration)
            let fresh = template.fresh(restingAt: offset)
            #expect(fresh.frame(at: 0) == built.frame(at: 0))
            #expect(try frames(fresh, from: 0) == frames(built, from: 0), "offset \(String(describing: offset))")
        }
    }
}
