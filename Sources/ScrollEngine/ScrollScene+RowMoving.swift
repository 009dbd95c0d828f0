/// Tap-and-hold row moving (info-panel-and-row-moving.txt: Clear / FMMoveTableView).
extension ScrollScene {
    /// Lifts the row under viewport `point` at `time`; false (nothing lifted) over no row.
    mutating func lift(at point: Point, time: Double, source: GestureSource) -> Bool {
        let offset = clampedToRange(motion.offset(at: time))
        let contentY = point.y + offset
        guard let indexPath = layout.indexPath(atContentY: contentY) else { return false }
        let frame = layout.rowFrame(at: indexPath)
        guard contentY >= frame.minY, contentY < frame.minY + frame.height else { return false }
        settle = nil
        gesture = .lifted(LiftedRow(
            row: layout.row(at: indexPath), from: indexPath, grabOffset: point.y - (frame.minY - offset),
            fingerY: point.y, liftTime: time, source: source, cachedDestination: indexPath, cachedLayout: nil))
        replanLiftedRow(from: offset, at: time)
        return true
    }

    mutating func moveLiftedRow(to point: Point, at time: Double) {
        guard case .lifted(var lifted) = gesture else { return }
        let offset = motion.offset(at: time)
        lifted.fingerY = point.y
        gesture = .lifted(lifted)
        replanLiftedRow(from: offset, at: time)
    }

    /// Autoscroll for the finger's place (`RowMoving.autoscrollVelocity`, constant until the next
    /// input, so the offset is linear in time and stops at the end of the range), and the
    /// placeholder's layout cached for frames.
    mutating func replanLiftedRow(from offset: Double, at time: Double) {
        guard case .lifted(var lifted) = gesture else { return }
        let c = configuration
        let speed = RowMoving.autoscrollVelocity(fingerY: lifted.fingerY, rowHeight: lifted.row.height,
                                                 viewport: c.viewport, insets: c.insets)
        motion = .autoscroll(from: offset, velocity: speed, range: offsetRange, at: time)
        if motion.lastChange > time { indicatorFade.show(at: time, until: motion.lastChange) }
        let destination = placeholderIndexPath(for: lifted, at: time)
        if destination != lifted.cachedDestination {
            lifted.cachedDestination = destination
            lifted.cachedLayout = destination == lifted.from ? nil : layout.movingRow(from: lifted.from, to: destination)
        }
        gesture = .lifted(lifted)
    }

    /// Where the placeholder is at `time`: decided by the snapshot's centre (`RowMoving.destination`).
    func placeholderIndexPath(for lifted: LiftedRow, at time: Double) -> IndexPath {
        let snapshotMidY = lifted.fingerY - lifted.grabOffset + motion.offset(at: time) + lifted.row.height / 2
        return RowMoving.destination(layout: layout, from: lifted.from, snapshotMidY: snapshotMidY)
    }

    /// The table as drawn while `lifted` is held: the row moved to the placeholder.
    func layoutWhileLifted(_ lifted: LiftedRow, destination: IndexPath) -> TableLayout {
        if destination == lifted.cachedDestination { return lifted.cachedLayout ?? layout }
        return destination == lifted.from ? layout : layout.movingRow(from: lifted.from, to: destination)
    }

    /// How lifted the snapshot looks (0…1), rising over `liftDuration`.
    func liftAmount(_ lifted: LiftedRow, at time: Double) -> Double {
        guard !reducedMotion else { return 1 }
        return min(max((time - lifted.liftTime) / Self.liftDuration, 0), 1)
    }

    /// Release (`commit`: the row lands on the placeholder, reported as `rowMoved`) or cancel (it
    /// goes back where it was, no change). Either way the snapshot settles into place over
    /// `RowMoving.settleDuration` and the content stops where it is.
    mutating func dropLiftedRow(at time: Double, commit: Bool) -> [SceneChange] {
        guard case .lifted(let lifted) = gesture else {
            gesture = .none
            return []
        }
        let offset = motion.offset(at: time)
        var destination = commit ? placeholderIndexPath(for: lifted, at: time) : lifted.from
        var changes: [SceneChange] = []
        if destination != lifted.from && layout.canMoveRow(from: lifted.from, to: destination) {
            layout = layout.movingRow(from: lifted.from, to: destination)
            configuration.sections = layout.sections
            changes = [.rowMoved(rowID: lifted.row.id, from: lifted.from, to: destination)]
        } else {
            destination = lifted.from
        }
        settle = RowSettle(
            row: lifted.row, indexPath: destination, fromY: lifted.fingerY - lifted.grabOffset,
            toContentY: layout.rowFrame(at: destination).minY, fromLift: liftAmount(lifted, at: time),
            start: time, duration: reducedMotion ? 0 : RowMoving.settleDuration)
        motion = .rest(offset, at: time)
        gesture = .none
        return changes
    }
}
