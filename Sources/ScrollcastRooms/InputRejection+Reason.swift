import ScrollEngine

extension InputRejection {
    /// A sentence for a `refused` message, naming what was wrong with the input.
    var reason: String {
        switch self {
        case .timeWentBackwards(let previous, let got):
            return "input time \(got) ms is before the previous input's \(previous) ms"
        case .notFinite(let field):
            return "field '\(field)' must be a finite number"
        case .rowOutOfRange(let path):
            return "no row \(path.row) in section \(path.section)"
        case .invalidSize(let size):
            return "invalid viewport size \(size.width) × \(size.height)"
        case .unexpected(let detail):
            return detail
        }
    }
}

extension InputKind {
    /// The gesture an input starts, if it claims the room until the gesture ends.
    var startsGesture: GestureKind? {
        switch self {
        case .pointerDown: return .pointer
        case .longPressBegan: return .longPress
        default: return nil
        }
    }

    /// The gesture an input ends, if any.
    var endsGesture: GestureKind? {
        switch self {
        case .pointerUp, .pointerCancelled: return .pointer
        case .longPressEnded, .longPressCancelled: return .longPress
        default: return nil
        }
    }
}

/// The two kinds of gesture that claim a room.
enum GestureKind: Sendable, Hashable {
    /// pointerDown … pointerUp / pointerCancel.
    case pointer
    /// longPressBegan … longPressEnd / longPressCancel.
    case longPress

    /// The input that ends this gesture as if the platform took it away.
    var cancellation: InputKind {
        switch self {
        case .pointer: return .pointerCancelled
        case .longPress: return .longPressCancelled
        }
    }
}
