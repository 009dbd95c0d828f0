import ScrollEngine

extension EffectFrame {
    /// Whether a client would decode the same frame from this one as from `other`, apart from
    /// `seq`, `t` and `sentAt` (and the engine's `lastInputID` and the insets, which frames do not
    /// carry: the room names the input itself). A room does not send such a frame again while nothing but
    /// time passes (docs/protocol.md, `frame`), e.g. during the half-second hold before a row
    /// lifts, when the scene is animating (the lift will come) but nothing on screen moves.
    public func showsTheSame(as other: EffectFrame) -> Bool {
        // Cheap first: while anything scrolls the offset differs, and the whole frame need not be rounded.
        let pt = WirePrecision.points
        guard isAnimating == other.isAnimating, phase == other.phase,
              pt.rounded(contentOffset) == pt.rounded(other.contentOffset) else { return false }
        var mine = roundedForWire(), theirs = other.roundedForWire()
        (mine.sequence, mine.time, mine.lastInputID) = (0, 0, nil)
        (theirs.sequence, theirs.time, theirs.lastInputID, theirs.insets) = (0, 0, nil, mine.insets)
        return mine == theirs
    }
}
