/// Scrolling without a finger on the content: wheel, keys, scroll-to-row.
extension ScrollScene {
    /// Wheel input (DOM `WheelEvent`; only the vertical delta scrolls).
    ///
    /// Mouse wheels and trackpads arrive as the same event, so they are told apart like this:
    /// line and page modes are always mouse-wheel notches; in pixel mode a delta of at least 50 that
    /// is a whole number is taken as a notch too (browsers report a notch as ±100 or ±120 px, or
    /// ±53 px and similar with scaling; trackpads send small or fractional deltas), unless a trackpad
    /// stream is already under way. Notches scroll smoothly: an animated ease-in-out scroll-to whose
    /// target accumulates across quick notches. Trackpad deltas move the content directly (the
    /// trackpad supplies its own momentum), rubber-banding past the edges; when no wheel event has
    /// come for `wheelStreamGap` ms the stream is over and the content springs back if past an edge.
    mutating func wheel(dy: Double, mode: WheelDeltaMode, at time: Double, stream: WheelStream?, target: Double?) {
        guard gesture.source == nil else { return }  // the finger owns the content
        guard dy != 0 else {
            wheelStream = stream
            scrollTarget = target
            return
        }
        let liveStream = stream.flatMap { time - $0.lastTime < Self.wheelStreamGap ? $0 : nil }
        switch mode {
        case .line:
            scroll(by: dy * Self.lineDistance, at: time, target: target)
        case .page:
            scroll(by: dy * pageDistance, at: time, target: target)
        case .pixel:
            if liveStream == nil && abs(dy) >= Self.notchMinimumPixels && dy == dy.rounded() {
                scroll(by: dy, at: time, target: target)
            } else {
                trackpad(dy: dy, at: time, stream: liveStream)
            }
        }
    }

    private mutating func trackpad(dy: Double, at time: Double, stream: WheelStream?) {
        let raw = (stream?.raw ?? rawOffset(displayed: motion.offset(at: time))) + dy
        let shown = displayedOffset(raw: raw)
        let range = offsetRange
        let streamEnd = time + Self.wheelStreamGap
        let settling: MotionPlan
        if shown < range.lowerBound || shown > range.upperBound {
            let edge = shown < range.lowerBound ? range.lowerBound : range.upperBound
            settling = .springBack(from: shown, velocity: 0, to: edge, at: streamEnd, reducedMotion: reducedMotion)
        } else {
            settling = .rest(shown, at: streamEnd)
        }
        motion = MotionPlan.tracking(shown, at: time).then(settling)
        wheelStream = WheelStream(raw: raw, lastTime: time)
        indicatorFade.show(at: time, until: motion.restTime)
        // Two fingers on a trackpad are a drag: a new stream brings the info panel like a drag does.
        if stream == nil {
            panelFade.show(at: time, until: motion.restTime)
        } else {
            panelFade.extend(at: time, until: motion.restTime)
        }
    }

    /// Keyboard scrolling, always animated (instant under reduced motion).
    mutating func key(_ key: ScrollKey, at time: Double, target: Double?) {
        guard gesture.source == nil else { return }
        switch key {
        case .arrowUp: scroll(by: -Self.lineDistance, at: time, target: target)
        case .arrowDown: scroll(by: Self.lineDistance, at: time, target: target)
        case .pageUp, .shiftSpace: scroll(by: -pageDistance, at: time, target: target)
        case .pageDown, .space: scroll(by: pageDistance, at: time, target: target)
        case .home: scroll(to: offsetRange.lowerBound, at: time)
        case .end: scroll(to: offsetRange.upperBound, at: time)
        }
    }

    /// `scrollToRowAtIndexPath:atScrollPosition:animated:` with the seed's fix
    /// (scroll-to-row-near-edges.txt, via `ScrollToRow.targetOffset`).
    mutating func scrollToRow(_ indexPath: IndexPath, position: ScrollPosition, animated: Bool, at time: Double) {
        guard gesture.source == nil else { return }
        let frame = layout.rowFrame(at: indexPath)
        let c = configuration
        let target = ScrollToRow.targetOffset(
            rowMinY: frame.minY, rowMaxY: frame.minY + frame.height, position: position,
            currentOffset: motion.offset(at: time), viewportHeight: c.viewport.height, insets: c.insets,
            contentHeight: layout.contentHeight)
        if animated {
            scroll(to: target, at: time)
        } else {
            motion = .rest(target, at: time)
        }
    }

    /// Animated scroll by `delta`, added to the running animation's target if there is one.
    private mutating func scroll(by delta: Double, at time: Double, target: Double?) {
        let base: Double
        if let target, motion.lastChange > time, motion.phase(at: time) == .animating {
            base = target
        } else {
            base = clampedToRange(motion.offset(at: time))
        }
        scroll(to: clampedToRange(base + delta), at: time)
    }

    /// Animated scroll from wherever the content is now to `target`.
    private mutating func scroll(to target: Double, at time: Double) {
        motion = .animate(from: motion.offset(at: time), to: target, at: time, reducedMotion: reducedMotion)
        scrollTarget = target
        if motion.lastChange > time { noteScrolling(at: time, until: motion.restTime) }
    }
}
