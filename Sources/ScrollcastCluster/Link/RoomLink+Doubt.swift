import ScrollcastRooms
import ScrollWire

/// Inputs for a room run here while its lease is in doubt (docs/cluster.md, "Inputs to a frozen
/// owner"): not applied until a renewal asked for since proves the lease, since a room whose
/// lease was taken must change nothing; refused, all of them, if the lease turns out lost. So
/// every input is applied or refused, never dropped in silence.
extension RoomLink {
    /// One input kept while the lease is in doubt: its viewer, and the node it came from (nil:
    /// a viewer connected here).
    struct InputInDoubt {
        var input: InputMessage
        var viewer: String
        var node: String?
    }

    /// The refusal's reason when the room stopped here before applying an input.
    nonisolated static let steppedDownReason =
        "the node running this room lost it (it was stopped or cut off from Redis) before applying this input; nothing of it was applied"
    /// The refusal's reason for an input sent to a node that does not run the room (any more).
    nonisolated static let notRunHereReason = "the room is not run on the node this input was sent to (its owner changed); nothing of it was applied"
    /// The refusal's reason for an input of a viewer the owner does not know (its roster is not in).
    nonisolated static let unknownViewerReason = "the node running this room does not know this viewer yet; nothing of it was applied"
    /// The refusal's reason when more than `mostWaitingInputs` inputs wait for the lease.
    nonisolated static let tooManyInDoubtReason = "too many inputs wait while the node running this room confirms its lease"

    /// Keeps `input` (of `viewer`, from `remoteNode` or from here) when the room runs here and
    /// its lease is in doubt; true when it was kept (or refused, past the limit).
    func keptInDoubt(_ input: InputMessage, viewer: String, from remoteNode: String?) -> Bool {
        guard case .owner(let lease) = state else { return false }
        if node.mayDeliver(under: lease) {
            // Trusted again without a renewal (Redis went away: see `mayDeliver`): the kept
            // inputs go first, so the room takes them all in the order they came.
            if !inputsInDoubt.isEmpty { leaseConfirmed() }
            return false
        }
        guard inputsInDoubt.count < Self.mostWaitingInputs else {
            refuse(input.id, viewer: viewer, from: remoteNode, reason: Self.tooManyInDoubtReason)
            return true
        }
        inputsInDoubt.append(InputInDoubt(input: input, viewer: viewer, node: remoteNode))
        return true
    }

    /// A renewal asked for after the doubt began succeeded: the kept inputs apply, in order.
    func leaseConfirmed() {
        let kept = inputsInDoubt
        inputsInDoubt = []
        for entry in kept {
            if let remoteNode = entry.node {
                remoteInput(entry.input, viewer: entry.viewer, from: remoteNode)
            } else {
                handle(entry.input, from: entry.viewer)
            }
        }
    }

    /// The room stops here (lease lost, evicted): no kept input will be applied here.
    func refuseInputsInDoubt() {
        let kept = inputsInDoubt
        inputsInDoubt = []
        for entry in kept { refuse(entry.input.id, viewer: entry.viewer, from: entry.node, reason: Self.steppedDownReason) }
    }

    private func refuse(_ inputID: UInt64, viewer: String, from remoteNode: String?, reason: String) {
        if let remoteNode {
            node.refuseRemote(inputID, viewer: viewer, of: remoteNode, room: name, reason: reason)
        } else {
            refuseHere(inputID, .unavailable, reason, to: viewer)
        }
    }
}
