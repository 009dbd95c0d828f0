extension ScrollScene {
    /// This scene with its rows in `order` (row ids per section, as `SceneConfiguration.rowOrder`
    /// gives them), at rest where its content is at `time`; nil when `order` is not a
    /// rearrangement of this table's rows (see `SceneConfiguration.reorderingRows`).
    ///
    /// For a host that must take back a row move it could not keep: whatever the scene was doing
    /// stops — a lifted row is put down (in `order`), a fling or animated scroll ends — and the
    /// content stays at the offset it had at `time`, clamped to the reordered table. Reduced
    /// motion, the viewport and the time of the last input carry over, so later inputs apply
    /// as they would have.
    public func reorderedAtRest(_ order: [[Int]], at time: Double) -> ScrollScene? {
        guard let configuration = configuration.reorderingRows(order) else { return nil }
        var scene = ScrollScene(configuration: configuration, restingAt: frame(at: time).contentOffset)
        scene.reducedMotion = reducedMotion
        scene.lastTime = lastTime
        scene.lastInputID = lastInputID
        return scene
    }
}
