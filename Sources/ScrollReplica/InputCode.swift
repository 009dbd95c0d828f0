import ScrollEngine

/// An input as plain numbers: how `InputKind` crosses the JavaScript ↔ WebAssembly boundary
/// (docs/wasm.md, "Inputs as numbers"), and how the cross-check prints its scripts. A kind code
/// and four fields `a`…`d` whose meaning depends on the kind; unused fields are 0.
public struct InputCode: Sendable, Hashable {
    /// The kind, 1…13 (see `Kind`).
    public var kind: Int
    public var a: Double
    public var b: Double
    public var c: Double
    public var d: Double

    /// Kind codes, in `InputKind`'s order.
    public enum Kind {
        public static let pointerDown = 1, pointerMoved = 2, pointerUp = 3, pointerCancelled = 4
        public static let wheel = 5, key = 6, scrollToRow = 7
        public static let longPressBegan = 8, longPressMoved = 9, longPressEnded = 10, longPressCancelled = 11
        public static let resize = 12, reducedMotion = 13
    }

    public init(kind: Int, a: Double = 0, b: Double = 0, c: Double = 0, d: Double = 0) {
        self.kind = kind; self.a = a; self.b = b; self.c = c; self.d = d
    }

    static let wheelModes: [WheelDeltaMode] = [.pixel, .line, .page]
    static let positions: [ScrollPosition] = [.none, .top, .middle, .bottom]

    /// The input these numbers stand for, or nil for an unknown kind or an out-of-range choice
    /// (wheel mode 0…2, key 0…7 in `ScrollKey.allCases` order, position 0…3, index ≥ 0).
    public var kindValue: InputKind? {
        let point = Point(x: a, y: b)
        switch kind {
        case Kind.pointerDown: return .pointerDown(point)
        case Kind.pointerMoved: return .pointerMoved(point)
        case Kind.pointerUp: return .pointerUp(point)
        case Kind.pointerCancelled: return .pointerCancelled
        case Kind.wheel:
            guard let mode = Self.choice(c, Self.wheelModes) else { return nil }
            return .wheel(dx: a, dy: b, mode: mode)
        case Kind.key:
            guard let key = Self.choice(a, ScrollKey.allCases) else { return nil }
            return .key(key)
        case Kind.scrollToRow:
            guard let section = Self.index(a), let row = Self.index(b),
                  let position = Self.choice(c, Self.positions) else { return nil }
            return .scrollToRow(IndexPath(section: section, row: row), position: position, animated: d != 0)
        case Kind.longPressBegan: return .longPressBegan(point)
        case Kind.longPressMoved: return .longPressMoved(point)
        case Kind.longPressEnded: return .longPressEnded(point)
        case Kind.longPressCancelled: return .longPressCancelled
        case Kind.resize: return .resize(Size(width: a, height: b))
        case Kind.reducedMotion: return .reducedMotion(a != 0)
        default: return nil
        }
    }

    /// A whole number in 0…Int32.max (Int is 32 bits in WebAssembly), as an index.
    static func index(_ x: Double) -> Int? {
        guard x >= 0, x <= Double(Int32.max), x == x.rounded(.towardZero) else { return nil }
        return Int(x)
    }

    static func choice<T>(_ x: Double, _ options: [T]) -> T? {
        guard let i = index(x), i < options.count else { return nil }
        return options[i]
    }
}
