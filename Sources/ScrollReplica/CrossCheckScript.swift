import ScrollEngine

/// A random input script for the native/WebAssembly cross-check (docs/wasm.md, "Determinism"):
/// a scene, maybe a restored state, then inputs of every kind with frames asked for between
/// them. The same seed gives the same script on every platform (`SeededRandom`).
public struct CrossCheckScript: Sendable {
    /// One step: apply an input, or take the frame at a time.
    public enum Step: Sendable, Equatable {
        case apply(InputCode, id: UInt64, time: Double, viewer: Int)
        case frame(time: Double)
    }

    /// A snapshot-like state to restore before the first input: `swaps` exchange the row ids at
    /// two flat positions of the scene's initial order (keeping each section's row count).
    public struct Restore: Sendable, Equatable {
        public var swaps: [(Int, Int)]
        public var viewport: Size
        public var offset: Double
        public static func == (a: Restore, b: Restore) -> Bool {
            a.viewport == b.viewport && a.offset == b.offset && a.swaps.elementsEqual(b.swaps) { $0 == $1 }
        }
    }

    public var seed: UInt64
    public var sceneName: String
    /// A random scene (`randomScene`), made from its `SceneBytes` on the WebAssembly side; nil
    /// for a built-in scene, made by name.
    public var scene: SceneConfiguration?
    public var restore: Restore?
    public var steps: [Step]
    /// The step after which the cross-check puts the engine through its state bytes (encode,
    /// restore, continue): drawn from the seed apart from the script, so scripts stay as they were.
    public var stateStep: Int {
        steps.isEmpty ? 0 : Int((seed &* 0x9E37_79B9_7F4A_7C15) >> 33) % steps.count
    }
    /// Viewer names inputs are applied for (`Step.apply.viewer` indexes it).
    public static let viewers = ["viewer-a", "v2"]

    /// The script of `seed`; with `randomScene`, in a random scene of its own (`scene`) rather
    /// than a built-in one (the same seed gives other inputs then).
    public init(seed: UInt64, randomScene: Bool = false) {
        var g = ScriptGenerator(seed: seed)
        self.seed = seed
        let rowCount: Int
        if randomScene {
            // Seeds 1 and 2 of every 30: the ends of the row range, so that any 30 seeds in a row have both.
            let scene = g.scene(rows: seed % 30 == 1 ? 1 : seed % 30 == 2 ? ScriptGenerator.maxRows : nil)
            self.scene = scene
            sceneName = "random-scene"
            rowCount = scene.sections.reduce(0) { $0 + $1.rows.count }
            g.height = scene.viewport.height
        } else {
            sceneName = g.chance(0.8) ? "demo" : "seed-table"
            rowCount = sceneName == "demo" ? 3000 : SeedTableScene.rowCount
        }
        if g.chance(0.3) {
            let swaps = (0..<g.int(0, 4)).map { _ in (g.int(0, rowCount - 1), g.int(0, rowCount - 1)) }
            restore = Restore(swaps: swaps, viewport: g.viewport(), offset: g.double(-300, 4000))
        }
        let segments = g.int(3, 8)
        for _ in 0..<segments { g.segment() }
        g.settle()
        steps = g.steps
    }

    /// `order` with the restore's swaps applied.
    public static func swapped(_ order: [[Int]], _ swaps: [(Int, Int)]) -> [[Int]] {
        var flat = order.flatMap { $0 }
        for (i, j) in swaps where flat.indices.contains(i) && flat.indices.contains(j) { flat.swapAt(i, j) }
        var result: [[Int]] = []
        var start = 0
        for section in order {
            result.append(Array(flat[start..<start + section.count]))
            start += section.count
        }
        return result
    }
}

/// Builds a script step by step: a clock that only moves forward (but for the odd deliberate
/// step back), and gestures made of several inputs.
struct ScriptGenerator {
    var random: SeededRandom
    var steps: [CrossCheckScript.Step] = []
    var time: Double
    var nextID: UInt64 = 1
    var viewer = 0
    var height: Double = 844

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        time = 0
        time = double(0, 50)
    }

    mutating func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
    mutating func double(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
    mutating func int(_ low: Int, _ high: Int) -> Int { low + Int(random.next() % UInt64(high - low + 1)) }
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    mutating func viewport() -> Size {
        let sizes = [Size(width: 390, height: 844), Size(width: 320, height: 480), Size(width: 1024, height: 700),
                     Size(width: 375, height: 667.5)]
        return sizes[int(0, sizes.count - 1)]
    }

    mutating func input(_ code: InputCode, after gap: Double) {
        time += gap
        steps.append(.apply(code, id: nextID, time: time, viewer: viewer))
        nextID += 1
    }

    /// Frames at a few times over the next `span` ms (the clock does not move: inputs may follow
    /// within the span, as a page's frames interleave with its inputs).
    mutating func frames(over span: Double, count: Int) {
        for _ in 0..<count { steps.append(.frame(time: time + double(0, span))) }
    }

    mutating func point(y: Double? = nil) -> (Double, Double) {
        (double(10, 380), y ?? double(60, height - 20))
    }

    mutating func segment() {
        if chance(0.15) { viewer = 1 - viewer }
        switch int(0, 11) {
        case 0, 1: drag(fling: true)
        case 2: drag(fling: false)
        case 3: holdAndMove()
        case 4: longPress()
        case 5: wheel()
        case 6: keys()
        case 7: scrollToRow()
        case 8: resize()
        case 9: input(InputCode(kind: InputCode.Kind.reducedMotion, a: chance(0.5) ? 1 : 0), after: double(1, 200))
        case 10: oddities()
        default: edgeFling()
        }
        frames(over: double(50, 1500), count: int(2, 7))
        time += double(0, 1200)
    }

    /// Down, moves 6–16 ms apart, then up (a fling when fast) or cancel.
    mutating func drag(fling: Bool, downY: Double? = nil, direction: Double? = nil) {
        let (x, y) = point(y: downY)
        input(InputCode(kind: InputCode.Kind.pointerDown, a: x, b: y), after: double(1, 100))
        let speed = (fling ? double(0.5, 6) : double(0.02, 0.4)) * (direction ?? (chance(0.5) ? 1 : -1))
        let last = moves(InputCode.Kind.pointerMoved, from: (x, y), count: int(2, 14), gap: (6, 16),
                         step: 0, velocity: speed, jitter: (3, 2), bounded: false, frameChance: 0.2)
        finish(InputCode.Kind.pointerUp, or: InputCode.Kind.pointerCancelled, cancelChance: 0.1, at: last,
               after: double(1, chance(0.2) ? 120 : 16))
    }

    /// A pointer held still past the lift delay, then moved (a row move) and released.
    mutating func holdAndMove() {
        let (x, y) = point()
        input(InputCode(kind: InputCode.Kind.pointerDown, a: x, b: y), after: double(1, 100))
        frames(over: 600, count: 2)
        if chance(0.3) { input(InputCode(kind: InputCode.Kind.pointerMoved, a: x + 2, b: y - 3), after: double(50, 300)) }
        time += double(480, 700)
        let last = moves(InputCode.Kind.pointerMoved, from: (x, y), count: int(1, 20), gap: (8, 40),
                         step: double(-12, 12), velocity: 0, jitter: (2, 4), bounded: true, frameChance: 0.25)
        finish(InputCode.Kind.pointerUp, or: InputCode.Kind.pointerCancelled, cancelChance: 0.15, at: last, after: double(5, 40))
    }

    /// The explicit long-press events.
    mutating func longPress() {
        let (x, y) = point()
        input(InputCode(kind: InputCode.Kind.longPressBegan, a: x, b: y), after: double(1, 100))
        let last = moves(InputCode.Kind.longPressMoved, from: (x, y), count: int(0, 12), gap: (8, 50),
                         step: 0, velocity: 0, jitter: (3, 30), bounded: false, frameChance: 0.25)
        finish(InputCode.Kind.longPressEnded, or: InputCode.Kind.longPressCancelled, cancelChance: 0.2, at: last,
               after: double(5, 60))
    }

    /// `count` moves of `kind`, each `gap` ms after the last, moving by `step` plus `velocity`
    /// (pt/ms) times the gap plus jitter (kept within 40 pt of the viewport when `bounded`), with
    /// a frame between them now and then. Returns the last point.
    mutating func moves(_ kind: Int, from start: (Double, Double), count: Int, gap: (Double, Double), step: Double,
                        velocity: Double, jitter: (x: Double, y: Double), bounded: Bool,
                        frameChance: Double) -> (Double, Double) {
        var (x, y) = start
        for _ in 0..<count {
            let dt = double(gap.0, gap.1)
            y += step + velocity * dt + double(-jitter.y, jitter.y)
            if bounded { y = min(max(y, -40), height + 40) }
            x += double(-jitter.x, jitter.x)
            input(InputCode(kind: kind, a: x, b: y), after: dt)
            if chance(frameChance) { frames(over: 30, count: 1) }
        }
        return (x, y)
    }

    /// Ends a gesture with `end` at `point`, or now and then with `cancel`.
    mutating func finish(_ end: Int, or cancel: Int, cancelChance: Double, at point: (Double, Double), after gap: Double) {
        input(chance(cancelChance) ? InputCode(kind: cancel) : InputCode(kind: end, a: point.0, b: point.1), after: gap)
    }

    /// A trackpad stream of small pixel deltas, mouse notches, or line and page deltas.
    mutating func wheel() {
        let mode = int(0, 2)
        let notch = mode == 0 && chance(0.3)
        let sign: Double = chance(0.5) ? 1 : -1
        for _ in 0..<int(1, 12) {
            let dy: Double
            switch mode {
            case 0: dy = notch ? sign * Double(int(50, 150)) : sign * double(0.5, 40)
            case 1: dy = sign * Double(int(1, 3))
            default: dy = sign * (chance(0.5) ? 1 : double(0.2, 2))
            }
            let gap = chance(0.15) ? double(130, 400) : double(8, 40)
            input(InputCode(kind: InputCode.Kind.wheel, a: double(-5, 5), b: dy, c: Double(mode)), after: gap)
            if chance(0.3) { frames(over: 40, count: 1) }
        }
    }

    mutating func keys() {
        for _ in 0..<int(1, 4) {
            input(InputCode(kind: InputCode.Kind.key, a: Double(int(0, 7))), after: chance(0.5) ? double(20, 120) : double(200, 900))
            if chance(0.4) { frames(over: 100, count: 1) }
        }
    }

    mutating func scrollToRow() {
        let section = chance(0.9) ? Double(int(0, 40)) : Double(int(600, 1200))
        let row = Double(int(0, chance(0.9) ? 4 : 30))
        input(InputCode(kind: InputCode.Kind.scrollToRow, a: section, b: row, c: Double(int(0, 3)), d: chance(0.7) ? 1 : 0),
              after: double(1, 300))
    }

    mutating func resize() {
        let size = chance(0.1) ? Size(width: 0, height: double(-10, 400)) : viewport()
        if size.height > 0 { height = size.height }
        input(InputCode(kind: InputCode.Kind.resize, a: size.width, b: size.height), after: double(1, 200))
    }

    /// Inputs the engine refuses: a move with no pointer down, time going backwards, a second
    /// pointer down, mixed gesture sources.
    mutating func oddities() {
        switch int(0, 3) {
        case 0: input(InputCode(kind: InputCode.Kind.pointerMoved, a: 10, b: 10), after: double(1, 50))
        case 1:
            input(InputCode(kind: InputCode.Kind.key, a: 1), after: double(1, 50))
            input(InputCode(kind: InputCode.Kind.key, a: 0), after: -double(1, 30))
        case 2:
            let (x, y) = point()
            input(InputCode(kind: InputCode.Kind.pointerDown, a: x, b: y), after: 5)
            input(InputCode(kind: InputCode.Kind.pointerDown, a: x, b: y), after: 5)
            input(InputCode(kind: InputCode.Kind.longPressMoved, a: x, b: y), after: 5)
            input(InputCode(kind: InputCode.Kind.pointerUp, a: x, b: y + 1), after: 5)
        default: input(InputCode(kind: InputCode.Kind.longPressEnded, a: 5, b: 5), after: 5)
        }
    }

    /// To an edge, then a fling past it (rubber band and bounce), sometimes pulling at the top.
    mutating func edgeFling() {
        let toEnd = chance(0.5)
        input(InputCode(kind: InputCode.Kind.key, a: toEnd ? 7 : 6), after: double(1, 100))
        time += double(400, 900)
        drag(fling: chance(0.7), direction: toEnd ? -1 : 1)
    }

    /// Frames until well after everything comes to rest.
    mutating func settle() {
        frames(over: 4000, count: int(3, 10))
    }
}
