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
        case (_, .rest):
            return .applied
        case (_, .rowOrder(let order)):
            return reorderAtRest(order, at: message.time)
                ? .applied : .rejected(.unexpected("the row order is not a rearrangement of the rows"))
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

extension EngineReplica {
    /// Adds the texts of a `texts` message (or, with `replacing`, a snapshot's whole table) to the
    /// server's table as a version-2 client holds it.
    public mutating func receiveServerTexts(_ received: WireTexts, replacing: Bool) {
        if replacing { serverTexts = WireTextTable() }
        serverTexts.apply(received)
    }

    /// The frame at `time` encoded against the server's table (registering nothing in it): the
    /// bytes the server's frame `sequence` has when the replica's state is the room's.
    public func serverFrameBytes(at time: Double, sequence: UInt64, sentAt: Double) -> [UInt8] {
        var frame = scene.frame(at: time)
        frame.sequence = sequence
        let sections = scene.sections
        var table = serverTexts
        return ServerMessageEncoderV2.frame(frame, input: lastApplied, sentAt: sentAt, texts: &table,
                                            ahead: { WireTextTable.upcoming(around: frame, in: sections) }).frame
    }

    /// Makes later frames name `input` (a frame's `input`), as the room's do after the frame a
    /// replica starts from.
    public mutating func nameInput(_ input: AppliedInput?) {
        lastApplied = input
    }

    /// Reduced motion on or off, nothing else changed (a replica restoring the room's state).
    public mutating func restoreReducedMotion(_ on: Bool) {
        scene.restoreReducedMotion(on)
    }

    /// The rows put back in `order` at rest (an `applied` `rowOrder`); false, changing nothing,
    /// when `order` is not a rearrangement of the rows.
    public mutating func reorderAtRest(_ order: [[Int]], at time: Double) -> Bool {
        guard let reordered = scene.reorderedAtRest(order, at: time) else { return false }
        scene = reordered
        return true
    }
}
