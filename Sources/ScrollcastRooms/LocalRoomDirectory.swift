import Logging
import ScrollWire

/// `RoomDirectory` for one node: every room lives in this node's registry, made (or restored
/// from the store) on its first join. A join whose room the store is still reading gets a
/// `LoadingRoomEndpoint` at once; the room admits it (snapshot and all) when the read comes back.
@RoomActor public final class LocalRoomDirectory: RoomDirectory {
    private let registry: RoomRegistry
    private let logger: Logger?

    /// A directory over `registry`'s rooms; `logger` hears of joins refused after a load.
    public init(registry: RoomRegistry, logger: Logger? = nil) {
        self.registry = registry
        self.logger = logger
    }

    /// Joins the viewer to the live room, else the stored one, else a new one; the room sends
    /// its snapshot once it is live (at once unless the store is still reading it).
    public func join(_ join: ViewerJoin) -> Result<RoomEndpoint, JoinFailure> {
        var waiting: LoadingRoomEndpoint?
        var atOnce: Result<RoomEndpoint, JoinFailure>?
        registry.roomForJoin(named: join.request.room, lockKey: join.newKey, sceneName: join.request.scene) { [logger] result in
            switch result {
            case .success(let (room, origin)):
                room.admit(join, createdHere: origin == .created)
                guard let waiting else { return atOnce = .success(room) }
                waiting.arrived(room)
            case .failure(let failure):
                guard let waiting else { return atOnce = .failure(failure) }
                logger?.error("refusing join after loading its room", metadata: [
                    "room": "\(join.request.room)", "viewer": "\(join.viewer)", "reason": "\(failure.closeReason.reason)"])
                waiting.failed(failure, sink: join.sink)
            }
        }
        if let atOnce { return atOnce }
        let endpoint = LoadingRoomEndpoint(name: join.request.room, viewer: join.viewer)
        waiting = endpoint
        return .success(endpoint)
    }
}

/// A joined viewer's room while the store reads it: what the viewer sends meanwhile waits
/// (up to `maxWaiting` messages) and reaches the room after the viewer's snapshot; once the room
/// is live everything goes straight to it.
@RoomActor final class LoadingRoomEndpoint: RoomEndpoint {
    /// Messages kept for the room while it loads; later ones are dropped (a client has no
    /// reason to send input before its snapshot).
    static let maxWaiting = 64

    let name: String
    private let viewer: String
    /// The room, once live.
    private(set) var room: Room?
    private var waiting: [(Room) -> Void] = []
    private var left = false

    init(name: String, viewer: String) {
        self.name = name
        self.viewer = viewer
    }

    func handle(_ input: InputMessage, from viewer: String) {
        if let room { return room.handle(input, from: viewer) }
        guard waiting.count < Self.maxWaiting else { return }
        waiting.append { $0.handle(input, from: viewer) }
    }

    func handleSharing(_ request: SharingRequest, from viewer: String) {
        if let room { return room.handleSharing(request, from: viewer) }
        guard waiting.count < Self.maxWaiting else { return }
        waiting.append { $0.handleSharing(request, from: viewer) }
    }

    func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to viewer: String) {
        if let room { return room.refuse(inputID, code, reason, to: viewer) }
        guard waiting.count < Self.maxWaiting else { return }
        waiting.append { $0.refuse(inputID, code, reason, to: viewer) }
    }

    func leave(viewer: String) {
        if let room { return room.leave(viewer: viewer) }
        left = true
    }

    /// A keyframe is answered only by a room live here: the snapshot on its way is one anyway,
    /// but the viewer could not know that yet, so asking is a protocol error as before.
    func requestKeyframe(for viewer: String) -> Bool {
        room?.requestKeyframe(for: viewer) ?? false
    }

    /// The room is live and has admitted the viewer.
    func arrived(_ room: Room) {
        self.room = room
        if left { return room.leave(viewer: viewer) }
        for message in waiting { message(room) }
        waiting.removeAll()
    }

    /// The room cannot be had: the viewer's connection closes with the reason.
    func failed(_ failure: JoinFailure, sink: ViewerSink) {
        waiting.removeAll()
        if !left { sink.close(failure.closeReason) }
    }
}
