import ScrollEngine

/// The gesture a driver repeats for the whole run (`--script`).
enum GestureScript: String, CaseIterable, Sendable {
    /// Pointer down, a quick drag with moves every 8–16 ms, release with speed: momentum follows.
    case fling
    /// A slow drag that comes to rest before release: no momentum.
    case drag
    /// Bursts of pixel wheel deltas every 8–16 ms, like a trackpad.
    case wheel
    /// Scroll keys (arrows, page, space, home/end) a few times a second.
    case keys
    /// Tap-and-hold: pointer down, held still ≥ 600 ms to lift a row, moved, dropped.
    case reorder
    /// A random mix of all the above, one gesture at a time.
    case mixed
}

/// One input of a gesture, `atMs` after the gesture began.
struct TimedInput: Sendable, Equatable {
    var atMs: Double
    var kind: InputKind
}

/// One gesture: its inputs in time order, and how long the driver waits after it began before
/// the next gesture starts (so momentum and animations run out, as a person would wait).
struct Gesture: Sendable, Equatable {
    var inputs: [TimedInput]
    var lengthMs: Double
}

/// Produces an endless, deterministic stream of gestures for one driver.
/// Points are kept inside the default 390 × 844 viewport, below the header.
struct GestureGenerator {
    private let script: GestureScript
    /// A recorded gesture played over and over instead of the script (`--replay`).
    private let recorded: Gesture?
    private var random: SeededRandom
    /// Alternates fling and drag directions so a long run does not pin the table to one end.
    private var goingDown = true

    /// Whether the script's numbers go out as drawn (full doubles) instead of rounded as the page
    /// sends them (`--test-fault unrounded-inputs`).
    private let unrounded: Bool

    init(script: GestureScript, seed: UInt64, unrounded: Bool = false) {
        self.script = script
        recorded = nil
        random = SeededRandom(seed: seed)
        self.unrounded = unrounded
    }

    /// A generator that gives `gesture` every time.
    init(replaying gesture: Gesture) {
        script = .mixed
        recorded = gesture
        random = SeededRandom(seed: 0)
        unrounded = true
    }

    /// The next gesture; a script's numbers at 0.01 (`asSent`), a recording's as recorded.
    mutating func next() -> Gesture {
        if let recorded { return recorded }
        var gesture = drawn()
        if !unrounded {
            for i in gesture.inputs.indices { gesture.inputs[i].kind = Self.asSent(gesture.inputs[i].kind) }
        }
        return gesture
    }

    /// `kind` with its points and wheel deltas rounded to 0.01, as the page sends points
    /// (Public/js/input.js) and browsers mostly give wheel deltas (whole pixels): the numbers a
    /// version-2 batch writes in 1–3 bytes. Drawn at full precision they would take 9 each, a
    /// cost no page's inputs pay.
    static func asSent(_ kind: InputKind) -> InputKind {
        func r(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        func p(_ point: Point) -> Point { Point(x: r(point.x), y: r(point.y)) }
        switch kind {
        case .pointerDown(let point): return .pointerDown(p(point))
        case .pointerMoved(let point): return .pointerMoved(p(point))
        case .pointerUp(let point): return .pointerUp(p(point))
        case .longPressBegan(let point): return .longPressBegan(p(point))
        case .longPressMoved(let point): return .longPressMoved(p(point))
        case .longPressEnded(let point): return .longPressEnded(p(point))
        case let .wheel(dx, dy, mode): return .wheel(dx: r(dx), dy: r(dy), mode: mode)
        default: return kind
        }
    }

    private mutating func drawn() -> Gesture {
        switch script {
        case .fling: return fling()
        case .drag: return drag()
        case .wheel: return wheel()
        case .keys: return keys()
        case .reorder: return reorder()
        case .mixed:
            let pick = GestureScript.allCases.filter { $0 != .mixed }.randomElement(using: &random)!
            switch pick {
            case .fling: return fling()
            case .drag: return drag()
            case .wheel: return wheel()
            case .keys: return keys()
            default: return reorder()
            }
        }
    }

    private mutating func frameGap() -> Double { Double.random(in: 8...16, using: &random) }

    private mutating func direction() -> Double {
        // Mostly forward, now and then back, so the content keeps moving over the long table.
        if Double.random(in: 0..<1, using: &random) < 0.25 { goingDown.toggle() }
        return goingDown ? -1 : 1 // finger up (negative dy) scrolls the content down
    }

    private mutating func fling() -> Gesture {
        let sign = direction()
        var point = Point(x: Double.random(in: 120...270, using: &random),
                          y: sign < 0 ? Double.random(in: 600...760, using: &random) : Double.random(in: 260...400, using: &random))
        var inputs = [TimedInput(atMs: 0, kind: .pointerDown(point))]
        var time = 0.0
        let moves = Int.random(in: 6...12, using: &random)
        for step in 0..<moves {
            time += frameGap()
            // Speeds up towards the release, as a flick does.
            let speed = 8 + Double(step) * Double.random(in: 2...5, using: &random)
            point.y += sign * speed
            point.x += Double.random(in: -2...2, using: &random)
            inputs.append(TimedInput(atMs: time, kind: .pointerMoved(point)))
        }
        time += frameGap()
        point.y += sign * 20
        inputs.append(TimedInput(atMs: time, kind: .pointerUp(point)))
        return Gesture(inputs: inputs, lengthMs: time + Double.random(in: 400...1500, using: &random))
    }

    private mutating func drag() -> Gesture {
        let sign = direction()
        var point = Point(x: Double.random(in: 100...290, using: &random), y: sign < 0 ? 700 : 260)
        var inputs = [TimedInput(atMs: 0, kind: .pointerDown(point))]
        // The first move leaves the 10 pt slop at once, so the press never becomes a lift.
        var time = frameGap()
        point.y += sign * 14
        inputs.append(TimedInput(atMs: time, kind: .pointerMoved(point)))
        let moves = Int.random(in: 30...90, using: &random)
        for _ in 0..<moves {
            time += frameGap()
            point.y += sign * Double.random(in: 1...5, using: &random)
            inputs.append(TimedInput(atMs: time, kind: .pointerMoved(point)))
        }
        // Rest before release so the lift-off velocity is zero.
        time += Double.random(in: 120...200, using: &random)
        inputs.append(TimedInput(atMs: time, kind: .pointerUp(point)))
        return Gesture(inputs: inputs, lengthMs: time + Double.random(in: 200...600, using: &random))
    }

    private mutating func wheel() -> Gesture {
        let sign = direction()
        var inputs: [TimedInput] = []
        var time = 0.0
        let events = Int.random(in: 10...40, using: &random)
        for index in 0..<events {
            // A trackpad swipe: strong at first, fading out.
            let strength = max(1, 60 - Double(index) * Double.random(in: 1...3, using: &random))
            inputs.append(TimedInput(atMs: time, kind: .wheel(dx: 0, dy: -sign * strength, mode: .pixel)))
            time += frameGap()
        }
        return Gesture(inputs: inputs, lengthMs: time + Double.random(in: 200...800, using: &random))
    }

    private mutating func keys() -> Gesture {
        let key: ScrollKey
        let roll = Double.random(in: 0..<1, using: &random)
        if roll < 0.01 { key = goingDown ? .end : .home }
        else if roll < 0.5 { key = goingDown ? .arrowDown : .arrowUp }
        else if roll < 0.8 { key = goingDown ? .pageDown : .pageUp }
        else { key = goingDown ? .space : .shiftSpace }
        if Double.random(in: 0..<1, using: &random) < 0.1 { goingDown.toggle() }
        return Gesture(inputs: [TimedInput(atMs: 0, kind: .key(key))],
                       lengthMs: Double.random(in: 200...600, using: &random))
    }

    private mutating func reorder() -> Gesture {
        var point = Point(x: Double.random(in: 60...330, using: &random), y: Double.random(in: 300...600, using: &random))
        var inputs = [TimedInput(atMs: 0, kind: .pointerDown(point))]
        // Held still past the 0.5 s long-press threshold, with a margin for timer slack.
        var time = Double.random(in: 600...800, using: &random)
        let sign: Double = Bool.random(using: &random) ? 1 : -1
        let moves = Int.random(in: 20...60, using: &random)
        for _ in 0..<moves {
            inputs.append(TimedInput(atMs: time, kind: .pointerMoved(point)))
            time += frameGap()
            point.y = min(800, max(80, point.y + sign * Double.random(in: 2...8, using: &random)))
        }
        inputs.append(TimedInput(atMs: time, kind: .pointerUp(point)))
        return Gesture(inputs: inputs, lengthMs: time + Double.random(in: 400...700, using: &random))
    }
}
