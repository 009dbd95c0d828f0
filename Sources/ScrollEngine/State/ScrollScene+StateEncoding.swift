/// The engine's state as bytes (docs/protocol.md, "Engine state bytes"): everything a replica
/// needs, beside its catalogue scene, to continue exactly where this scene is, mid-fling,
/// mid-drag or with a row lifted. Little-endian, versioned (`StateWriter.formatVersion`) and
/// stamped with `EngineVersion.current`; `ScrollScene(restoring:base:)` reads it back.
extension ScrollScene {
    /// This scene's dynamic state, the row order written only when it differs from `base`'s
    /// (the catalogue configuration the reader restores onto). Pure: the same state gives the
    /// same bytes.
    public func stateBytes(base: SceneConfiguration) -> [UInt8] {
        var w = StateWriter()
        for b in StateWriter.magic { w.byte(b) }
        w.byte(StateWriter.formatVersion)
        w.u32(EngineVersion.current)
        w.double(configuration.viewport.width)
        w.double(configuration.viewport.height)
        w.bool(reducedMotion)
        w.double(lastTime)
        w.bool(lastInputID != nil)
        if let lastInputID { w.u64(lastInputID) }
        writeRowOrder(into: &w, base: base)
        w.count(motion.segments.count)
        for segment in motion.segments { Self.write(segment, into: &w) }
        writeGesture(into: &w)
        w.bool(settle != nil)
        if let settle {
            w.svarint(settle.row.id)
            Self.write(settle.indexPath, into: &w)
            for v in [settle.fromY, settle.toContentY, settle.fromLift, settle.start, settle.duration] { w.double(v) }
        }
        w.bool(wheelStream != nil)
        if let wheelStream { w.double(wheelStream.raw); w.double(wheelStream.lastTime) }
        w.bool(scrollTarget != nil)
        if let scrollTarget { w.double(scrollTarget) }
        for fade in [indicatorFade, panelFade] {
            w.double(fade.anchorTime); w.double(fade.anchorAlpha); w.double(fade.visibleUntil)
        }
        return w.bytes
    }

    /// 0 for `base`'s order; else 1, the section count, and per section its row count and row
    /// ids as zigzag differences from the id before (1 byte a row for a table moved a little).
    private func writeRowOrder(into w: inout StateWriter, base: SceneConfiguration) {
        let order = configuration.rowOrder
        guard order != base.rowOrder else { w.byte(0); return }
        w.byte(1)
        w.count(order.count)
        var previous = 0
        for ids in order {
            w.count(ids.count)
            for id in ids { w.svarint(id &- previous); previous = id }
        }
    }

    private func writeGesture(into w: inout StateWriter) {
        switch gesture {
        case .none: w.byte(0)
        case .pressed(let press):
            w.byte(1)
            w.double(press.downTime)
            Self.write(press.downPoint, into: &w)
            Self.write(press.lastPoint, into: &w)
            w.double(press.heldOffset)
            w.bool(press.canLift)
            Self.write(press.velocity, into: &w)
        case .dragging(let drag):
            w.byte(2)
            w.double(drag.anchorY); w.double(drag.anchorRaw); w.double(drag.raw)
            Self.write(drag.velocity, into: &w)
        case .lifted(let lifted):
            w.byte(3)
            w.svarint(lifted.row.id)
            Self.write(lifted.from, into: &w)
            w.double(lifted.grabOffset); w.double(lifted.fingerY); w.double(lifted.liftTime)
            w.byte(lifted.source == .pointer ? 0 : 1)
            Self.write(lifted.cachedDestination, into: &w)
        case .longPressOverNothing: w.byte(4)
        }
    }

    static let phases: [ScrollPhase] = [.idle, .tracking, .decelerating, .bouncing, .animating]

    private static func write(_ segment: MotionSegment, into w: inout StateWriter) {
        w.double(segment.start)
        w.byte(UInt8(phases.firstIndex(of: segment.phase) ?? 0))
        switch segment.curve {
        case .hold(let offset): w.byte(0); w.double(offset)
        case .decay(let d): w.byte(1); w.double(d.start); w.double(d.velocity); w.double(d.rate)
        case .spring(let s):
            // The table is rebuilt from its start and target: the same arithmetic, the same table.
            w.byte(2); w.double(s.startOffset); w.double(s.startVelocity); w.double(s.target)
        case .ease(let e): w.byte(3); w.double(e.from); w.double(e.to); w.double(e.duration)
        case .linear(let from, let velocity): w.byte(4); w.double(from); w.double(velocity)
        }
    }

    private static func write(_ point: Point, into w: inout StateWriter) { w.double(point.x); w.double(point.y) }

    private static func write(_ indexPath: IndexPath, into w: inout StateWriter) {
        w.count(indexPath.section); w.count(indexPath.row)
    }

    private static func write(_ velocity: VelocityEstimator, into w: inout StateWriter) {
        w.count(velocity.samples.count)
        for s in velocity.samples { w.double(s.time); w.double(s.y) }
    }
}
