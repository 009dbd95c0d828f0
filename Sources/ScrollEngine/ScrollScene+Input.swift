extension ScrollScene {
    /// Carries out a validated input at `time`. It never fails: `apply` changes the scene in place
    /// once `validate` has passed, so a refusal found here would leave a half-applied input.
    mutating func handle(_ kind: InputKind, at time: Double) -> [SceneChange] {
        // A trackpad stream and an accumulating scroll-to survive only back-to-back inputs of their kind.
        let stream = wheelStream
        let target = scrollTarget
        wheelStream = nil
        scrollTarget = nil
        switch kind {
        case .pointerDown(let point):
            pointerDown(point, at: time)
        case .pointerMoved(let point):
            pointerMoved(point, at: time)
        case .pointerUp(let point):
            return pointerUp(point, at: time)
        case .pointerCancelled:
            return pointerCancelled(at: time)
        case .longPressBegan(let point):
            catchContent(at: time)
            if !lift(at: point, time: time, source: .longPress) { gesture = .longPressOverNothing }
        case .longPressMoved(let point):
            moveLiftedRow(to: point, at: time)
        case .longPressEnded(let point):
            moveLiftedRow(to: point, at: time)
            return dropLiftedRow(at: time, commit: true)
        case .longPressCancelled:
            return dropLiftedRow(at: time, commit: false)
        case .wheel(_, let dy, let mode):
            wheel(dy: dy, mode: mode, at: time, stream: stream, target: target)
        case .key(let key):
            self.key(key, at: time, target: target)
        case .scrollToRow(let indexPath, let position, let animated):
            scrollToRow(indexPath, position: position, animated: animated, at: time)
        case .resize(let size):
            resize(to: size, at: time)
        case .reducedMotion(let on):
            setReducedMotion(on, at: time)
        }
        return []
    }

    /// Lifts the row under a pointer held since `pendingLiftTime`, if that moment has come.
    mutating func fireDueTimers(upTo time: Double) {
        guard case .pressed(var press) = gesture, let due = pendingLiftTime, due <= time else { return }
        if !lift(at: press.lastPoint, time: due, source: .pointer) {
            press.canLift = false
            gesture = .pressed(press)
        }
    }

    mutating func setReducedMotion(_ on: Bool, at time: Double) {
        reducedMotion = on
        guard on else { return }
        // Animations become instant: whatever was under way jumps to its end.
        settle = nil
        if case .none = gesture, motion.lastChange > time {
            motion = .rest(clampedToRange(motion.finalOffset), at: time)
        }
    }

    mutating func resize(to size: Size, at time: Double) {
        configuration.viewport = size
        switch gesture {
        case .none, .longPressOverNothing:
            // A new size stops any motion and keeps the content within the new range.
            motion = .rest(clampedToRange(motion.offset(at: time)), at: time)
        case .pressed:
            break
        case .dragging(let drag):
            motion = .tracking(displayedOffset(raw: drag.raw), at: time)
        case .lifted:
            replanLiftedRow(from: clampedToRange(motion.offset(at: time)), at: time)
        }
    }

    /// The offset shown for an unconstrained offset (rubber band past the edges, Grant Paul's
    /// formula with d = the viewport height).
    func displayedOffset(raw: Double) -> Double {
        RubberBand.displayed(raw: raw, range: offsetRange, dimension: configuration.viewport.height)
    }

    func rawOffset(displayed: Double) -> Double {
        RubberBand.raw(displayed: displayed, range: offsetRange, dimension: configuration.viewport.height)
    }
}
