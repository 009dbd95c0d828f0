/// Why an input was refused, for clients to act on (`refused.code`); `reason` is the same for
/// people. A client can, for instance, show "watch only" on `locked` but simply wait on `driving`.
public enum RefusalCode: String, Sendable, Hashable, CaseIterable {
    /// Another viewer holds the room with a gesture (drag or long press) until it ends.
    case driving
    /// The room is locked and this viewer joined without its driver key: it can only watch.
    case locked
    /// This viewer's own gesture is still in progress; end it before starting another.
    case gestureInProgress
    /// The input's `t` is earlier than this viewer's previous input.
    case outOfOrder
    /// The engine cannot apply it: a row out of range, a bad size, an unexpected sequence.
    case invalidInput
    /// Over the per-connection input rate; slow down (flooding on closes with 1008).
    case rateLimited
    /// The server cannot store row moves right now (its disk is full or read-only): the row
    /// stays where it was. Scrolling still works; moving rows works again once the store does.
    /// In a cluster also: the room's owner cannot be reached, or lost the room before applying
    /// the input (nothing of it was applied).
    case unavailable
    /// Sharing (docs/protocol.md, "Sharing"): an `ask` from a viewer that may drive already
    /// (the room is not locked, or it holds the key or a grant).
    case mayDrive
    /// Sharing: an `ask` while this viewer's earlier request is still open.
    case pending
    /// Sharing: a `grant`, `deny` (or, in a locked room, `callBack`) from a viewer without the key.
    case notKeyHolder
    /// Sharing: a `grant` or `deny` naming a viewer with no open request.
    case noRequest
    /// Sharing: an input from a viewer that said it explores (its input drives its own replica).
    case exploring
}
