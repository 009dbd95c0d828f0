import ScrollEngine

/// The compact text form of an `InputKind` kept in the log's `input` column: the case name,
/// then its fields in declaration order, separated by single spaces.
///
/// | case | text |
/// | --- | --- |
/// | `pointerDown(p)`, `pointerMoved(p)`, `pointerUp(p)` | `pointerDown X Y` |
/// | `pointerCancelled`, `longPressCancelled` | the name alone |
/// | `wheel(dx:dy:mode:)` | `wheel DX DY pixel` (`pixel`, `line` or `page`) |
/// | `key(k)` | `key arrowUp` (a `ScrollKey` raw value) |
/// | `scrollToRow(ip, position:animated:)` | `scrollToRow SECTION ROW top 1` (`ScrollPosition` raw value; 1 or 0) |
/// | `longPressBegan(p)`, `longPressMoved(p)`, `longPressEnded(p)` | `longPressBegan X Y` |
/// | `resize(s)` | `resize WIDTH HEIGHT` |
/// | `reducedMotion(b)` | `reducedMotion 1` (1 or 0) |
///
/// Numbers are written as Swift's shortest decimal that reads back to the same `Double`
/// (`Double.description`), so a decoded event is bit-for-bit the one the room applied — which
/// replay needs to reproduce frames byte for byte. Text rather than JSON keeps a row short (a
/// room at 60 inputs/s logs a lot of them) and still readable in the `sqlite3` shell.
enum InputKindCoding {
    /// The text form of `kind`.
    static func encode(_ kind: InputKind) -> String {
        switch kind {
        case .pointerDown(let p): return "pointerDown \(p.x) \(p.y)"
        case .pointerMoved(let p): return "pointerMoved \(p.x) \(p.y)"
        case .pointerUp(let p): return "pointerUp \(p.x) \(p.y)"
        case .pointerCancelled: return "pointerCancelled"
        case let .wheel(dx, dy, mode): return "wheel \(dx) \(dy) \(mode.rawValue)"
        case .key(let key): return "key \(key.rawValue)"
        case let .scrollToRow(indexPath, position, animated):
            return "scrollToRow \(indexPath.section) \(indexPath.row) \(position.rawValue) \(animated ? 1 : 0)"
        case .longPressBegan(let p): return "longPressBegan \(p.x) \(p.y)"
        case .longPressMoved(let p): return "longPressMoved \(p.x) \(p.y)"
        case .longPressEnded(let p): return "longPressEnded \(p.x) \(p.y)"
        case .longPressCancelled: return "longPressCancelled"
        case .resize(let size): return "resize \(size.width) \(size.height)"
        case .reducedMotion(let on): return "reducedMotion \(on ? 1 : 0)"
        }
    }

    /// The kind `text` encodes, or nil if it is not one `encode` writes.
    static func decode(_ text: String) -> InputKind? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let name = fields.first else { return nil }
        let arguments = Array(fields.dropFirst())

        func point() -> Point? {
            guard arguments.count == 2, let x = Double(arguments[0]), let y = Double(arguments[1]) else { return nil }
            return Point(x: x, y: y)
        }
        func flag(_ text: String) -> Bool? { text == "1" ? true : text == "0" ? false : nil }

        switch name {
        case "pointerDown": return point().map { .pointerDown($0) }
        case "pointerMoved": return point().map { .pointerMoved($0) }
        case "pointerUp": return point().map { .pointerUp($0) }
        case "pointerCancelled": return arguments.isEmpty ? .pointerCancelled : nil
        case "wheel":
            guard arguments.count == 3, let dx = Double(arguments[0]), let dy = Double(arguments[1]),
                  let mode = WheelDeltaMode(rawValue: arguments[2]) else { return nil }
            return .wheel(dx: dx, dy: dy, mode: mode)
        case "key":
            guard arguments.count == 1, let key = ScrollKey(rawValue: arguments[0]) else { return nil }
            return .key(key)
        case "scrollToRow":
            guard arguments.count == 4, let section = Int(arguments[0]), let row = Int(arguments[1]),
                  let position = ScrollPosition(rawValue: arguments[2]), let animated = flag(arguments[3]) else { return nil }
            return .scrollToRow(IndexPath(section: section, row: row), position: position, animated: animated)
        case "longPressBegan": return point().map { .longPressBegan($0) }
        case "longPressMoved": return point().map { .longPressMoved($0) }
        case "longPressEnded": return point().map { .longPressEnded($0) }
        case "longPressCancelled": return arguments.isEmpty ? .longPressCancelled : nil
        case "resize":
            guard let p = point() else { return nil }
            return .resize(Size(width: p.x, height: p.y))
        case "reducedMotion":
            guard arguments.count == 1, let on = flag(arguments[0]) else { return nil }
            return .reducedMotion(on)
        default: return nil
        }
    }
}
