/// info-panel-and-row-moving.txt (Clear, FMMoveTableView): constants and pure helpers for tap-and-hold row moving.
///
/// In the Clear app (and Florian Mielke's `FMMoveTableView` from the seed) there is no edit mode:
/// holding a row lifts a snapshot of it that follows the finger, the row's place becomes an empty
/// placeholder that hops over neighbours as the snapshot passes them, the table autoscrolls when the
/// finger nears its top or bottom edge, and on release the snapshot animates into the placeholder.
public enum RowMoving {
    /// How long (ms) the finger must rest on a row before it lifts (`UILongPressGestureRecognizer`'s 0.5 s).
    public static let liftDelay: Double = 500
    /// How far (pt) the finger may wander during `liftDelay`; moving further first makes it a scroll instead.
    public static let slop: Double = 10
    /// The fastest autoscroll (pt/s), reached with the finger at the far edge of an edge zone or beyond.
    public static let maxAutoscrollSpeed: Double = 360
    /// Depth of each autoscroll zone, in heights of the lifted row.
    public static let autoscrollZoneRows: Double = 0.6
    /// ms the snapshot takes to animate into place after release (UIKit's ~0.25 s standard animation).
    public static let settleDuration: Double = 250

    /// Signed autoscroll speed (pt/s) for a finger at viewport y: 0 outside the edge zones (zone = 0.6 × rowHeight
    /// inside the insets), growing linearly with depth into the zone up to maxAutoscrollSpeed.
    ///
    /// Negative scrolls towards the top (the finger is near the top bar), positive towards the bottom.
    /// A finger over a bar itself is deeper than the zone and gets the full speed. Non-finite input
    /// or a non-positive row height gives 0.
    public static func autoscrollVelocity(fingerY: Double, rowHeight: Double, viewport: Size, insets: EdgeInsets) -> Double {
        let zone = autoscrollZoneRows * rowHeight
        guard zone > 0, zone.isFinite, fingerY.isFinite else { return 0 }
        let topDepth = insets.top + zone - fingerY
        let bottomDepth = fingerY - (viewport.height - insets.bottom - zone)
        guard topDepth.isFinite, bottomDepth.isFinite else { return 0 }
        // A viewport shorter than both zones puts the finger in both; the deeper one wins.
        if topDepth > 0 && topDepth >= bottomDepth {
            return -maxAutoscrollSpeed * min(1, topDepth / zone)
        }
        if bottomDepth > 0 {
            return maxAutoscrollSpeed * min(1, bottomDepth / zone)
        }
        return 0
    }

    /// Where the placeholder sits while the lifted row's snapshot (its centre at content y `snapshotMidY`) moves:
    /// it passes a neighbour when the snapshot centre crosses that neighbour's midpoint. Returned in the
    /// order *after* the move (pass it to `movingRow(from:to:)`).
    ///
    /// `layout` is the table with the lifted row at `from` (the placeholder's current place). Moving
    /// down, the placeholder passes each following neighbour whose midpoint is above the snapshot's
    /// centre, in order; moving up, each preceding one whose midpoint is below it. Section headers are
    /// neighbours too: passing the next section's header moves the placeholder to that section's
    /// row 0, passing its own section's header moves it to the end of the previous section (so a row can
    /// be dropped into an empty section). Because neighbours are measured where they sit now, a
    /// neighbour just passed must be crossed back at its new midpoint, which keeps the placeholder from
    /// flickering. `from` itself when `from` is not a row or the centre is not finite.
    /// O(number of neighbours passed).
    public static func destination(layout: TableLayout, from: IndexPath, snapshotMidY: Double) -> IndexPath {
        guard layout.contains(from), snapshotMidY.isFinite else { return from }
        let sections = layout.sections
        func countAfterRemoval(_ section: Int) -> Int {
            sections[section].rows.count - (section == from.section ? 1 : 0)
        }
        func headerMidY(_ section: Int) -> Double {
            let header = layout.sectionHeaderFrame(at: section)
            return header.minY + header.height / 2
        }
        func rowMidY(section: Int, row: Int) -> Double {
            let frame = layout.rowFrame(at: IndexPath(section: section, row: row))
            return frame.minY + frame.height / 2
        }

        // (section, row): the placeholder's index path in the order after the move.
        var section = from.section
        var row = from.row

        // Moving down: rows below the placeholder in its section sit one further in the current
        // layout, because the lifted row still occupies `from` there.
        while true {
            if row < countAfterRemoval(section) {
                let currentRow = section == from.section ? row + 1 : row
                guard rowMidY(section: section, row: currentRow) < snapshotMidY else { break }
                row += 1
            } else {
                guard section + 1 < sections.count, headerMidY(section + 1) < snapshotMidY else { break }
                section += 1
                row = 0
            }
        }
        if section != from.section || row != from.row { return IndexPath(section: section, row: row) }

        // Moving up: rows above the placeholder have the same index in both orders.
        while true {
            if row > 0 {
                guard rowMidY(section: section, row: row - 1) > snapshotMidY else { break }
                row -= 1
            } else {
                guard section > 0, headerMidY(section) > snapshotMidY else { break }
                section -= 1
                row = countAfterRemoval(section)
            }
        }
        return IndexPath(section: section, row: row)
    }
}
