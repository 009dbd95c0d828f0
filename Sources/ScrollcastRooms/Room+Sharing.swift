import ScrollWire

// Sharing (docs/protocol.md, "Sharing"): asking to drive a locked room, the key holders' answer,
// following or exploring, and calling everyone back. The key never leaves the server for this: a
// grant is the server's record that a viewer may drive, kept for the rest of its connection and
// its resumes.
extension Room {
    /// A sharing message of viewer `id`.
    public func handleSharing(_ request: SharingRequest, from id: String) {
        defer { deadlineMayHaveMoved() }
        guard let index = viewers.firstIndex(where: { $0.id == id }) else { return }
        switch request {
        case .ask: ask(by: index)
        case .grant(let asker): answer(asker, granting: true, by: index)
        case .deny(let asker): answer(asker, granting: false, by: index)
        case .view(let mode): setView(mode, of: index)
        case .callBack: callBack(by: index)
        }
    }

    /// Whether `viewer` may drive: the room is open, it holds the key, or it has a grant.
    func mayDrive(_ viewer: Viewer) -> Bool {
        viewer.canDrive || sharing.hasGrant(viewer.id)
    }

    /// The viewers holding a locked room's key (`canDrive` means exactly that in a locked room).
    private var keyHolders: [String] {
        isLocked ? viewers.filter(\.canDrive).map(\.id) : []
    }

    private func ask(by index: Int) {
        let id = viewers[index].id
        guard !mayDrive(viewers[index]) else {
            return refuseSharing(.mayDrive, isLocked ? "you may drive already: you hold this room's key or a grant"
                                                    : "anyone may drive this room: it is not locked", to: id)
        }
        if let open = sharing.request(of: id) {
            let seconds = Int(((open.expiresAt - now) / 1000).rounded(.up))
            return refuseSharing(.pending, "your request is still open; it lapses in \(seconds) s", to: id)
        }
        guard sharing.takeAsk(by: id, now: now) else {
            return refuseSharing(.rateLimited, "too many requests: at most \(Int(RoomSharing.askBurst)) at once, then one per \(Int(1 / RoomSharing.asksPerSecond)) s", to: id)
        }
        let request = sharing.open(by: id, now: now)
        tell(.asked(viewer: id, expiresIn: Int(request.expiresAt - now)), to: keyHolders + [id])
    }

    private func answer(_ asker: String, granting: Bool, by index: Int) {
        let id = viewers[index].id
        guard isLocked, viewers[index].canDrive else {
            return refuseSharing(.notKeyHolder, "only holders of this room's key may grant or deny a request", to: id)
        }
        guard sharing.close(of: asker) != nil else {
            return refuseSharing(.noRequest, "\(asker) has no open request: it was answered, lapsed or left", to: id)
        }
        guard granting else { return tell(.denied(viewer: asker, by: id), to: keyHolders + [asker]) }
        let grant = sharing.grant(asker)
        tell(.granted(viewer: asker, by: id, grant: grant), to: [asker])
        tell(.granted(viewer: asker, by: id, grant: nil), to: keyHolders)
        announcePresence(urgent: true)
    }

    private func setView(_ mode: ViewMode, of index: Int) {
        let id = viewers[index].id
        if mode == .explore, claim?.viewer == id {
            return refuseSharing(.gestureInProgress, "end your gesture before exploring", to: id)
        }
        // Not urgent: a viewer flipping back and forth costs the room one presence per 250 ms.
        if sharing.set(mode, of: id) { announcePresence(urgent: false) }
    }

    private func callBack(by index: Int) {
        let id = viewers[index].id
        guard !isLocked || viewers[index].canDrive else {
            return refuseSharing(.notKeyHolder, "only holders of this room's key may call everyone back", to: id)
        }
        tell(.follow(by: id), to: viewers.map(\.id).filter(sharing.explores))
    }

    /// Closes the requests lapsed by `time`, telling their askers and the key holders.
    func expireRequests(at time: Double) {
        let lapsed = sharing.expire(now: time)
        guard !lapsed.isEmpty else { return }
        for request in lapsed { tell(.expired(viewer: request.viewer), to: keyHolders + [request.viewer]) }
    }

    /// Viewer `id` left: its open request lapses for the key holders; its grant waits for its
    /// resume, or passes at once to a resume that presented it already.
    func sharingLeft(_ id: String) {
        let granted = sharing.granted
        let request = sharing.left(id, now: now)
        if sharing.granted != granted.filter({ $0 != id }) { announcePresence(urgent: true) }
        guard let request else { return }
        tell(.expired(viewer: request.viewer), to: keyHolders)
    }

    /// A joining viewer presenting the grant of a viewer that left (its own earlier connection,
    /// by `resume.grant`) may drive as that one could.
    func resumeGrant(_ resume: ResumeRequest?, for id: String) {
        _ = sharing.resume(resume?.grant, for: id, now: now)
    }

    /// What a joiner's snapshot (or `resumed`) does not say: presence when someone explores or holds
    /// a grant, and to a key holder the requests still open.
    func tellJoinerOfSharing(_ id: String) {
        guard let viewer = viewers.first(where: { $0.id == id }) else { return }
        if !sharing.isQuiet { sendPresence(to: .viewer(id)) }
        guard isLocked, viewer.canDrive else { return }
        for request in sharing.requests {
            tell(.asked(viewer: request.viewer, expiresIn: max(0, Int(request.expiresAt - now))), to: [id])
        }
    }

    /// Presence's sharing fields now.
    var presenceSharing: (exploring: Int, granted: [String]) {
        (sharing.exploring.count, sharing.granted)
    }

    /// `notice` for each of `recipients`, encoded once per version.
    private func tell(_ notice: SharingNotice, to recipients: [String]) {
        guard !recipients.isEmpty else { return }
        let message = forEveryVersion(v1: { ServerMessageEncoder.sharing(notice) }, v2: { ServerMessageEncoderV2.sharing(notice) })
        for id in Set(recipients) { channel.send(message, to: .viewer(id)) }
    }

    /// Answers a sharing message of viewer `id` with `refused` (its `input` null).
    private func refuseSharing(_ code: RefusalCode, _ reason: String, to id: String) {
        guard let version = viewers.first(where: { $0.id == id })?.version else { return }
        channel.send(RoomMessage(.refused(input: nil, code: code, reason: reason, version: version), for: version), to: .viewer(id))
    }
}
