extension ScrollScene {
    /// Whether reduced motion is on (the last `reducedMotion` input said so).
    public var isReducedMotion: Bool { reducedMotion }

    /// Turns reduced motion on or off without an input: for a replica restoring a room's state at
    /// rest, which a snapshot's row order and offset do not carry (docs/protocol.md, "Inputs
    /// applied"). Changes nothing else.
    public mutating func restoreReducedMotion(_ on: Bool) {
        reducedMotion = on
    }
}
