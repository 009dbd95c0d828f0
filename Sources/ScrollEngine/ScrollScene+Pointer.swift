extension ScrollScene {
    /// A finger on moving content stops it where it is (UIScrollView's tap-to-stop).
    mutating func catchContent(at time: Double) {
        let wasMoving = motion.lastChange > time
        motion = .tracking(motion.offset(at: time), at: time)
        if wasMoving {
            // Scrolling ends here; the indicator and a visible panel start their way out.
            indicatorFade.endActivity(at: time)
            panelFade.endActivity(at: time)
        }
    }

    mutating func pointerDown(_ point: Point, at time: Double) {
        catchContent(at: time)
        var velocity = VelocityEstimator()
        velocity.add(time: time, y: point.y)
        gesture = .pressed(PendingPress(downTime: time, downPoint: point, lastPoint: point,
                                        heldOffset: motion.offset(at: time), canLift: true, velocity: velocity))
    }

    mutating func pointerMoved(_ point: Point, at time: Double) {
        switch gesture {
        case .pressed(var press):
            // The gesture lets go of its payload first, so the velocity samples grow in place
            // rather than being copied by every move (both held them); it is set again below.
            gesture = .none
            press.velocity.add(time: time, y: point.y)
            press.lastPoint = point
            let dx = point.x - press.downPoint.x, dy = point.y - press.downPoint.y
            if (dx * dx + dy * dy).squareRoot() > Self.holdSlop {
                beginDrag(press, at: point, time: time)
            } else {
                gesture = .pressed(press)
            }
        case .dragging(var drag):
            gesture = .none  // as above
            drag.velocity.add(time: time, y: point.y)
            drag.raw = drag.anchorRaw - (point.y - drag.anchorY)
            gesture = .dragging(drag)
            motion = .tracking(displayedOffset(raw: drag.raw), at: time)
        case .lifted:
            moveLiftedRow(to: point, at: time)
        case .none, .longPressOverNothing:
            break
        }
    }

    /// The finger left the slop before the hold lifted anything: from here the content follows it.
    /// The drag is anchored where the finger is now, so the content does not jump by the slop.
    private mutating func beginDrag(_ press: PendingPress, at point: Point, time: Double) {
        let raw = rawOffset(displayed: press.heldOffset)
        gesture = .dragging(Drag(anchorY: point.y, anchorRaw: raw, raw: raw, velocity: press.velocity))
        // scrollViewWillBeginDragging: the indicator appears and Path 2's info panel fades in.
        indicatorFade.show(at: time, until: .infinity)
        panelFade.show(at: time, until: .infinity)
    }

    mutating func pointerUp(_ point: Point, at time: Double) -> [SceneChange] {
        switch gesture {
        case .pressed:
            // A tap: nothing moves (but content caught past an edge springs back).
            release(velocity: 0, at: time, wasDragging: false)
        case .dragging:
            pointerMoved(point, at: time)
            guard case .dragging(let drag) = gesture else { return [] }
            // The content moves opposite to the finger.
            release(velocity: -drag.velocity.velocity(at: time), at: time, wasDragging: true)
        case .lifted:
            moveLiftedRow(to: point, at: time)
            return dropLiftedRow(at: time, commit: true)
        case .none, .longPressOverNothing:
            break
        }
        return []
    }

    mutating func pointerCancelled(at time: Double) -> [SceneChange] {
        switch gesture {
        case .pressed:
            release(velocity: 0, at: time, wasDragging: false)
        case .dragging:
            // A cancelled gesture is no fling.
            release(velocity: 0, at: time, wasDragging: true)
        case .lifted:
            return dropLiftedRow(at: time, commit: false)
        case .none, .longPressOverNothing:
            break
        }
        return []
    }

    /// Lets go of the content at its current place with `velocity` (content pt/s).
    private mutating func release(velocity: Double, at time: Double, wasDragging: Bool) {
        let offset = motion.offset(at: time)
        let range = offsetRange
        var v = velocity
        if offset < range.lowerBound || offset > range.upperBound {
            // Past an edge only a fraction of the finger's speed shows (the rubber band's slope).
            let edge = offset < range.lowerBound ? range.lowerBound : range.upperBound
            v *= RubberBand.slope(distance: rawOffset(displayed: offset) - edge, dimension: configuration.viewport.height)
        }
        motion = .release(from: offset, velocity: v, range: range, rate: configuration.decelerationRate.value,
                          at: time, reducedMotion: reducedMotion)
        gesture = .none
        if wasDragging || motion.lastChange > time {
            noteScrolling(at: time, until: motion.restTime)
        }
    }
}
