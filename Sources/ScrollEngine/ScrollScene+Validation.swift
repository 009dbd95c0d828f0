extension ScrollScene {
    /// Throws for inputs the scene refuses, before anything changes.
    func validate(_ event: InputEvent) throws(InputRejection) {
        guard event.time.isFinite else { throw .notFinite(field: "time") }
        guard event.time >= lastTime else { throw .timeWentBackwards(previous: lastTime, got: event.time) }
        switch event.kind {
        case .pointerDown(let p), .pointerMoved(let p), .pointerUp(let p),
             .longPressBegan(let p), .longPressMoved(let p), .longPressEnded(let p):
            guard p.x.isFinite else { throw .notFinite(field: "x") }
            guard p.y.isFinite else { throw .notFinite(field: "y") }
        case .wheel(let dx, let dy, _):
            guard dx.isFinite else { throw .notFinite(field: "dx") }
            guard dy.isFinite else { throw .notFinite(field: "dy") }
        case .resize(let size):
            guard size.width.isFinite else { throw .notFinite(field: "width") }
            guard size.height.isFinite else { throw .notFinite(field: "height") }
            guard size.width > 0, size.height > 0, size.width <= Self.maximumViewportSide,
                  size.height <= Self.maximumViewportSide else { throw .invalidSize(size) }
        case .scrollToRow(let indexPath, _, _):
            guard layout.contains(indexPath) else { throw .rowOutOfRange(indexPath) }
        case .pointerCancelled, .longPressCancelled, .key, .reducedMotion:
            break
        }
        try validateSequence(event.kind, at: event.time)
    }

    /// Largest accepted viewport side, pt (far beyond any screen; keeps the arithmetic sane).
    static let maximumViewportSide: Double = 100_000

    private func validateSequence(_ kind: InputKind, at time: Double) throws(InputRejection) {
        // A held pointer may have lifted its row by now; pointer events still belong to it.
        let source = gesture.source
        switch kind {
        case .pointerDown:
            guard source == nil else { throw .unexpected(joinedText("pointerDown while a ", source!.rawValue, " is already down")) }
        case .pointerMoved, .pointerUp, .pointerCancelled:
            guard source == .pointer else { throw .unexpected("pointer event with no pointer down") }
        case .longPressBegan:
            guard source == nil else { throw .unexpected(joinedText("longPressBegan while a ", source!.rawValue, " is already down")) }
        case .longPressMoved, .longPressEnded, .longPressCancelled:
            guard source == .longPress else { throw .unexpected("long-press event with no long press begun") }
        default:
            break
        }
    }
}
