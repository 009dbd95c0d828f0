import ScrollcastServer
import ScrollWire

/// A link in owner mode: the room runs here, and viewers of other nodes are in it through their
/// nodes' rosters.
extension RoomLink {
    /// Node `from`'s viewers of the room are exactly `roster`.
    func roster(_ roster: [NodeMessage.RosterViewer], from remoteNode: String, at now: Double) {
        guard case .owner(let room) = mode else { return }
        var state = remoteNodes[remoteNode] ?? RemoteNode(lastRoster: now)
        state.lastRoster = now
        // A node names only its own viewers: its names start with its id.
        let valid = roster.filter { $0.id.hasPrefix(remoteNode + "/") && WireVersion(rawValue: $0.version) != nil }
        let listed = Set(valid.map(\.id))
        for id in state.viewers.keys where !listed.contains(id) {
            room.leave(viewer: id)
            state.viewers[id] = nil
        }
        for viewer in valid {
            if let generation = state.viewers[viewer.id] {
                if generation != viewer.generation { room.sendSnapshot(to: viewer.id) }
            } else if !room.hasViewer(viewer.id) {
                let request = viewer.joinRequest(room: name)
                room.admit(ViewerJoin(viewer: viewer.id, sink: RemoteViewerSink(node: remoteNode),
                                      version: WireVersion(rawValue: viewer.version) ?? .v1, request: request, newKey: nil),
                           createdHere: false)
            }
            state.viewers[viewer.id] = viewer.generation
        }
        remoteNodes[remoteNode] = state.viewers.isEmpty ? nil : state
        node.roomsChanged()
    }

    /// An input of viewer `viewer` on node `remoteNode`.
    func remoteInput(_ text: String, viewer: String, from remoteNode: String) {
        guard case .owner(let room) = mode, remoteNodes[remoteNode]?.viewers[viewer] != nil else { return }
        guard case .input(let input)? = try? ClientMessageDecoder.decode(Array(text.utf8)) else { return }
        room.handle(input, from: viewer)
        node.roomsChanged()
    }

    /// Drops the viewers of nodes that sent no roster for `timeout` ms (the node died, or lost
    /// its link): presence counts only viewers someone still serves.
    func dropSilentNodes(now: Double, timeout: Double) {
        guard case .owner(let room) = mode else { return }
        let silent = remoteNodes.filter { now - $0.value.lastRoster >= timeout }
        guard !silent.isEmpty else { return }
        for (remoteNode, state) in silent {
            node.logger.notice("dropping viewers of a silent node", metadata: [
                "room": "\(name)", "node": "\(remoteNode)", "viewers": "\(state.viewers.count)"])
            for id in state.viewers.keys { room.leave(viewer: id) }
            remoteNodes[remoteNode] = nil
        }
        node.roomsChanged()
    }

    /// This node lost the room's lease (to `holder`, if known): the room is already gone here;
    /// its viewers here follow the new owner.
    func steppedDown(to holder: String?, epoch holderEpoch: UInt64?) {
        remoteNodes = [:]
        mode = .remote
        owner = holder
        if let holderEpoch { epoch = max(epoch, holderEpoch) }
        guard !viewers.isEmpty else { return node.drop(self) }
        for viewer in viewers { awaitSnapshot(viewer.join.viewer) }
        listen()
    }

    /// The room run here was evicted (nobody watched it for its grace period).
    func evicted() {
        remoteNodes = [:]
        mode = .claiming
        firstClaim = true
        if viewers.isEmpty { node.drop(self) }
    }
}
