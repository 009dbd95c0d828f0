import ScrollEngine
import ScrollWire

/// A viewer's input as a follower sends it to the owner inside a `NodeMessage`: typed binary,
/// big-endian, decoded once by the owner straight into the `InputMessage` its room applies.
///
/// ```
/// u64 id · f64 t (client ms) · u8 kind, then by kind:
///   1 pointerDown, 2 pointerMove, 3 pointerUp,
///   8 longPressBegan, 9 longPressMoved, 10 longPressEnded: f64 x · f64 y
///   4 pointerCancel, 11 longPressCancelled: nothing
///   5 wheel: f64 dx · f64 dy · u8 mode (0 pixel, 1 line, 2 page)
///   6 key: u8 (0 arrowUp, 1 arrowDown, 2 pageUp, 3 pageDown, 4 space, 5 shiftSpace, 6 home, 7 end)
///   7 scrollToRow: u32 section · u32 row · u8 position (0 none, 1 top, 2 middle, 3 bottom) · u8 animated
///   12 resize: f64 width · f64 height
///   13 reducedMotion: u8 (0 or 1)
/// kind + 128: the same, then f64 at (the input's `at`, room ms)
/// ```
///
/// The follower's node has already validated the input (ScrollWire's decoder); the owner's
/// engine checks it again as it applies it (finite numbers, rows in range).
enum RelayedInput {
    static func append(_ input: InputMessage, to out: inout [UInt8]) {
        ClusterBytes.append(input.id, to: &out)
        ClusterBytes.append(input.clientTime, to: &out)
        let stamped: UInt8 = input.at == nil ? 0 : 128
        defer { if let at = input.at { ClusterBytes.append(at, to: &out) } }
        func point(_ kind: UInt8, _ p: Point) { out.append(kind | stamped); ClusterBytes.append(p.x, to: &out); ClusterBytes.append(p.y, to: &out) }
        switch input.kind {
        case .pointerDown(let p): point(1, p)
        case .pointerMoved(let p): point(2, p)
        case .pointerUp(let p): point(3, p)
        case .pointerCancelled: out.append(4 | stamped)
        case let .wheel(dx, dy, mode):
            out.append(5 | stamped)
            ClusterBytes.append(dx, to: &out)
            ClusterBytes.append(dy, to: &out)
            out.append(mode == .pixel ? 0 : mode == .line ? 1 : 2)
        case .key(let key):
            out.append(6 | stamped)
            out.append(UInt8(ScrollKey.allCases.firstIndex(of: key) ?? 0))
        case let .scrollToRow(path, position, animated):
            out.append(7 | stamped)
            ClusterBytes.append(UInt32(clamping: path.section), to: &out)
            ClusterBytes.append(UInt32(clamping: path.row), to: &out)
            out.append(UInt8(ScrollPosition.allCases.firstIndex(of: position) ?? 0))
            out.append(animated ? 1 : 0)
        case .longPressBegan(let p): point(8, p)
        case .longPressMoved(let p): point(9, p)
        case .longPressEnded(let p): point(10, p)
        case .longPressCancelled: out.append(11 | stamped)
        case .resize(let size):
            out.append(12 | stamped)
            ClusterBytes.append(size.width, to: &out)
            ClusterBytes.append(size.height, to: &out)
        case .reducedMotion(let on):
            out.append(13 | stamped)
            out.append(on ? 1 : 0)
        }
    }

    /// The input at the reader's position; nil when the bytes are not one.
    static func read(_ reader: inout ClusterBytesReader) -> InputMessage? {
        guard let id = reader.u64(), let time = reader.double(), let code = reader.byte() else { return nil }
        let kind = code & 127
        func point() -> Point? {
            guard let x = reader.double(), let y = reader.double() else { return nil }
            return Point(x: x, y: y)
        }
        let input: InputKind?
        switch kind {
        case 1: input = point().map(InputKind.pointerDown)
        case 2: input = point().map(InputKind.pointerMoved)
        case 3: input = point().map(InputKind.pointerUp)
        case 4: input = .pointerCancelled
        case 5:
            guard let dx = reader.double(), let dy = reader.double(), let mode = reader.byte(), mode < 3 else { return nil }
            input = .wheel(dx: dx, dy: dy, mode: [.pixel, .line, .page][Int(mode)])
        case 6:
            guard let key = reader.byte(), Int(key) < ScrollKey.allCases.count else { return nil }
            input = .key(ScrollKey.allCases[Int(key)])
        case 7:
            guard let section = reader.u32(), let row = reader.u32(), let position = reader.byte(),
                  Int(position) < ScrollPosition.allCases.count, let animated = reader.byte() else { return nil }
            input = .scrollToRow(IndexPath(section: Int(section), row: Int(row)),
                                 position: ScrollPosition.allCases[Int(position)], animated: animated != 0)
        case 8: input = point().map(InputKind.longPressBegan)
        case 9: input = point().map(InputKind.longPressMoved)
        case 10: input = point().map(InputKind.longPressEnded)
        case 11: input = .longPressCancelled
        case 12:
            guard let width = reader.double(), let height = reader.double() else { return nil }
            input = .resize(Size(width: width, height: height))
        case 13:
            guard let on = reader.byte() else { return nil }
            input = .reducedMotion(on != 0)
        default: input = nil
        }
        guard let input else { return nil }
        var at: Double?
        if code & 128 != 0 {
            guard let stamp = reader.double() else { return nil }
            at = stamp
        }
        return InputMessage(id: id, clientTime: time, kind: input, at: at)
    }
}
