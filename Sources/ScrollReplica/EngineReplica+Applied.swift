import ScrollEngine
import ScrollWire

extension EngineReplica {
    /// Applies what an `applied` message says the room applied (docs/protocol.md, "Inputs
    /// applied"): an input, a cancel the room made itself, or a row order taken back. A `state`
    /// message changes nothing here (it is what `restore(…reducedMotion:)` takes). Returns
    /// `.rejected(.unexpected)` for a row order that is not a rearrangement of the rows.
    public mutating func apply(_ message: AppliedMessage) -> Outcome {
        switch (message.cause, message.change) {
        case (.state, _):
            return .applied
        case (_, .input(let kind)):
            return apply(InputEvent(id: message.id, time: message.time, kind: kind), viewer: message.viewer ?? "",
                         namesFrames: message.namesFrames)
        case (_, .rowOrder(let order)):
            guard let reordered = scene.reorderedAtRest(order, at: message.time) else { return .rejected(.unexpected("the row order is not a rearrangement of the rows")) }
            scene = reordered
            return .applied
        }
    }

    /// `restore(order:viewport:restingAt:)`, with reduced motion on or off as the room has it
    /// (an `applied` message of kind `reducedMotion`, or `state`, says which).
    public mutating func restore(order: [[Int]], viewport: Size, restingAt offset: Double, reducedMotion: Bool) -> Bool {
        guard restore(order: order, viewport: viewport, restingAt: offset) else { return false }
        scene.restoreReducedMotion(reducedMotion)
        return true
    }
}
