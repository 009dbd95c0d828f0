import Testing
@testable import ScrollEngine

/// Random scripts are reproducible: every number comes from the seed.
extension SeededRandom {
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func range(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
}

/// A random but valid input script: gestures, wheels, keys, scroll-to-row, resize, reduced motion.
func randomScript(seed: UInt64) -> [InputEvent] {
    var rng = SeededRandom(seed: seed)
    var events: [InputEvent] = []
    var time = 0.0
    var id: UInt64 = 0
    func add(_ kind: InputKind) { id += 1; events.append(InputEvent(id: id, time: time, kind: kind)) }
    for _ in 0..<25 {
        time += rng.range(0, 400)
        switch rng.next() % 7 {
        case 0, 1:  // a drag or a hold, possibly a fling
            var y = rng.range(100, 800)
            add(.pointerDown(Point(x: 200, y: y)))
            let moves = Int(rng.next() % 12)
            let step = rng.range(-40, 40)
            for _ in 0..<moves {
                time += rng.range(4, rng.unit() < 0.2 ? 700 : 20)
                y += step
                add(.pointerMoved(Point(x: 200, y: y)))
            }
            time += rng.range(0, 30)
            if rng.unit() < 0.1 { add(.pointerCancelled) } else { add(.pointerUp(Point(x: 200, y: y))) }
        case 2:
            for _ in 0..<Int(1 + rng.next() % 8) {
                time += rng.range(5, 60)
                let notch = rng.unit() < 0.5
                add(.wheel(dx: 0, dy: notch ? 100 * (rng.unit() < 0.5 ? -1 : 1) : rng.range(-30, 30), mode: .pixel))
            }
        case 3:
            add(.key(ScrollKey.allCases[Int(rng.next() % UInt64(ScrollKey.allCases.count))]))
        case 4:
            add(.scrollToRow(IndexPath(section: 0, row: Int(rng.next() % 100)),
                             position: ScrollPosition.allCases[Int(rng.next() % 4)], animated: rng.unit() < 0.7))
        case 5:
            add(.longPressBegan(Point(x: 200, y: rng.range(300, 700))))
            time += rng.range(10, 300)
            add(.longPressMoved(Point(x: 200, y: rng.range(50, 840))))
            time += rng.range(10, 900)
            if rng.unit() < 0.3 { add(.longPressCancelled) } else { add(.longPressEnded(Point(x: 200, y: rng.range(50, 840)))) }
        default:
            if rng.unit() < 0.5 {
                add(.resize(Size(width: 390, height: rng.range(500, 1000))))
            } else {
                add(.reducedMotion(rng.unit() < 0.3))
            }
        }
    }
    return events
}

@Suite struct DeterminismTests {
    /// Replays `script`, asking for frames every `step` ms in between (nil: never).
    func replay(_ script: [InputEvent], samplingEvery step: Double?) throws -> ScrollScene {
        var scene = ScrollScene(configuration: plainConfiguration())
        var sampled = 0.0
        for event in script {
            if let step {
                while sampled < event.time {
                    _ = scene.frame(at: sampled)
                    sampled += step
                }
            }
            _ = try scene.apply(event)
        }
        return scene
    }

    @Test(arguments: [1 as UInt64, 2, 3, 42, 0xDEAD_BEEF, 2024])
    func samplingDoesNotChangeFrames(seed: UInt64) throws {
        let script = randomScript(seed: seed)
        let end = try #require(script.last).time
        let unsampled = try replay(script, samplingEvery: nil)
        for step in [1.0, 8.0, 16.7] {
            let sampled = try replay(script, samplingEvery: step)
            for t in [end, end + 7.3, end + 150, end + 1234.5, end + 10_000] {
                #expect(sampled.frame(at: t) == unsampled.frame(at: t), "seed \(seed), step \(step), t \(t)")
            }
        }
        // And the state after every prefix of the script gives the same frames as a fresh replay.
        #expect(try replay(script, samplingEvery: nil).frame(at: end + 300) == unsampled.frame(at: end + 300))
    }

    @Test func frameIsPureRegardlessOfOrderOfQueries() throws {
        let scene = try replay(randomScript(seed: 7), samplingEvery: nil)
        let late = scene.frame(at: 99_999)
        _ = scene.frame(at: 1)
        _ = scene.frame(at: 50_000)
        #expect(scene.frame(at: 99_999) == late)
    }

    @Test func randomScriptsEventuallyStopAnimating() throws {
        for seed: UInt64 in [5, 6, 8] {
            let script = randomScript(seed: seed)
            let scene = try replay(script, samplingEvery: nil)
            let frame = scene.frame(at: try #require(script.last).time + 60_000)
            #expect(frame.isAnimating == false || frame.phase == .tracking, "seed \(seed)")
            #expect(frame.contentOffset.isFinite)
        }
    }
}
