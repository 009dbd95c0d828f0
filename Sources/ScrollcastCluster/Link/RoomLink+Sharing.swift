import ScrollcastRooms
import ScrollWire

// Sharing across nodes (docs/cluster.md, "Sharing across nodes"): every sharing message goes to
// the room's owner, whose room keeps the requests, grants and explorers of every node and answers
// as one node does; its answers reach viewers on other nodes through the relay like any message
// to one viewer. A node passes its viewer's message, never a key: the owner knows who holds the
// key from the rosters, which it checks against the room's digest.
extension RoomLink {
    /// The refusal's reason for a sharing message while no node can take it.
    nonisolated static let sharingUnavailableReason =
        "the node running this room cannot be reached right now (it is being chosen or cut off); try again"
    /// The refusal's reason for a sharing message sent to a node that does not run the room (any more).
    nonisolated static let sharingNotRunHereReason =
        "the room is not run on the node this message was sent to (its owner changed); try again"
    /// The refusal's reason for a sharing message of a viewer the owner does not know (its roster is not in).
    nonisolated static let sharingUnknownViewerReason = "the node running this room does not know this viewer yet; try again"

    /// A sharing message of viewer `viewer` connected here: the room run here handles it, or its
    /// owner does. While no owner can take it, it is refused (`unavailable`): unlike an input it
    /// is not kept, and the page's next snapshot says its view again anyway.
    func handleSharing(_ request: SharingRequest, from viewer: String) {
        switch LinkMachine.route(state, connected: node.backend.isConnected) {
        case .apply:
            room?.handleSharing(request, from: viewer)
        case .forward(let owner):
            node.send(.sharing(room: name, node: node.nodeID, viewer: viewer, request: request), to: owner)
        case .wait, .refuse:
            refuseHere(nil, .unavailable, Self.sharingUnavailableReason, to: viewer)
        }
    }

    /// A sharing message of viewer `viewer` on node `remoteNode`, for the room run here.
    func remoteSharing(_ request: SharingRequest, viewer: String, from remoteNode: String) {
        guard let room, remoteNodes[remoteNode]?.viewers[viewer] != nil else {
            // Never dropped in silence: the viewer's node hands the refusal to it.
            return node.refuseRemote(nil, viewer: viewer, of: remoteNode, room: name,
                                     reason: self.room == nil ? Self.sharingNotRunHereReason : Self.sharingUnknownViewerReason)
        }
        room.handleSharing(request, from: viewer)
    }
}
