@testable import ScrollEngine

/// The scripted scenarios whose trajectories GoldenTrajectoryTests checks against recorded tables.
enum GoldenScenario: String, CaseIterable {
    case fling, edgeBounce, wheelNotchBurst, trackpadStream

    /// Content offsets sampled every 50 ms from `start`, 20 samples.
    static let step = 50.0
    static let count = 20

    var start: Double {
        switch self {
        case .fling, .edgeBounce: return 70
        case .wheelNotchBurst: return 0
        case .trackpadStream: return 0
        }
    }

    /// The scenario's inputs.
    func inputs() -> [(time: Double, kind: InputKind)] {
        var s = Recorder()
        switch self {
        case .fling:
            // 2 pt/ms upwards finger, released at offset 76 with +2000 pt/s.
            s.send(0, .pointerDown(point(700)))
            for i in 1...6 { s.send(Double(i) * 10, .pointerMoved(point(700 - Double(i) * 20))) }
            s.send(70, .pointerUp(point(560)))
        case .edgeBounce:
            // Scroll down 300 pt, then fling back up at 3 pt/ms: crosses the top and bounces.
            s.send(-1000, .scrollToRow(IndexPath(section: 0, row: 5), position: .top, animated: false))
            s.send(0, .pointerDown(point(300)))
            for i in 1...6 { s.send(Double(i) * 10, .pointerMoved(point(300 + Double(i) * 30))) }
            s.send(70, .pointerUp(point(510)))
        case .wheelNotchBurst:
            for (i, dy) in [100.0, 100, 100, -100, 100].enumerated() {
                s.send(Double(i) * 40, .wheel(dx: 0, dy: dy, mode: .pixel))
            }
        case .trackpadStream:
            // A swipe up past the top (negative deltas), tapering like a trackpad's own momentum.
            var t = 0.0
            for dy in [-30.5, -42.25, -38.0, -25.5, -14.0, -6.5, -2.25, -0.75] {
                s.send(t, .wheel(dx: 0, dy: dy, mode: .pixel))
                t += 16
            }
        }
        return s.inputs
    }

    /// Offsets at start, start + 50 ms, …: each sample is taken with exactly the inputs sent by then,
    /// as a live viewer would see it.
    func trajectory() throws -> [Double] {
        var scene = ScrollScene(configuration: plainConfiguration())
        var pending = inputs()[...]
        var id: UInt64 = 0
        return try (0..<Self.count).map { i in
            let t = start + Double(i) * Self.step
            while let next = pending.first, next.time <= t {
                id += 1
                _ = try scene.apply(InputEvent(id: id, time: next.time, kind: next.kind))
                pending = pending.dropFirst()
            }
            return scene.frame(at: t).contentOffset
        }
    }
}

struct Recorder {
    var inputs: [(time: Double, kind: InputKind)] = []
    mutating func send(_ time: Double, _ kind: InputKind) { inputs.append((time, kind)) }
}
