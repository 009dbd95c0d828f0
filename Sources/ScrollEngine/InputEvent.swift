/// How a wheel event's deltas are measured, as DOM `WheelEvent.deltaMode`.
public enum WheelDeltaMode: String, Sendable, Hashable {
    case pixel, line, page
}

/// Keyboard commands the engine understands (all animated).
public enum ScrollKey: String, Sendable, Hashable, CaseIterable {
    case arrowUp, arrowDown, pageUp, pageDown, space, shiftSpace, home, end
}

/// `UITableView.ScrollPosition`.
public enum ScrollPosition: String, Sendable, Hashable, CaseIterable {
    case none, top, middle, bottom
}

/// One raw input, as the viewer produced it. Points are in viewport coordinates (logical pt,
/// origin at the viewport's top-left).
public enum InputKind: Sendable, Hashable {
    /// A finger, pen or mouse button went down. Held 0.5 s within 10 pt it lifts the row under
    /// it (tap-and-hold row moving); moved further first, it drags the content.
    case pointerDown(Point)
    case pointerMoved(Point)
    case pointerUp(Point)
    /// The platform took the gesture away (DOM `pointercancel`).
    case pointerCancelled
    case wheel(dx: Double, dy: Double, mode: WheelDeltaMode)
    case key(ScrollKey)
    case scrollToRow(IndexPath, position: ScrollPosition, animated: Bool)
    /// Explicit long press for clients that recognise it themselves; same effect as a held pointer.
    case longPressBegan(Point)
    case longPressMoved(Point)
    case longPressEnded(Point)
    case longPressCancelled
    case resize(Size)
    /// Reduced motion cuts parallax and momentum and makes animations instant.
    case reducedMotion(Bool)
}

/// An input with the id its sender gave it and its time on the scene's clock (ms).
/// Times must not go backwards: the engine refuses such an event.
public struct InputEvent: Sendable, Hashable {
    public var id: UInt64
    public var time: Double
    public var kind: InputKind
    public init(id: UInt64, time: Double, kind: InputKind) {
        self.id = id; self.time = time; self.kind = kind
    }
}

/// Why the engine refused an input. The scene is unchanged when it refuses.
public enum InputRejection: Error, Sendable, Hashable {
    case timeWentBackwards(previous: Double, got: Double)
    case notFinite(field: String)
    case rowOutOfRange(IndexPath)
    case invalidSize(Size)
    /// e.g. pointerMoved with no pointer down.
    case unexpected(String)
}

/// A change to the table's persistent state, reported by `apply` so that it can be sent
/// reliably to every viewer.
public enum SceneChange: Sendable, Hashable {
    /// A lifted row was dropped at a new place. `from`/`to` are index paths before/after.
    case rowMoved(rowID: Int, from: IndexPath, to: IndexPath)
}
