import ScrollWire

/// Where a joining viewer's room is: on one node the registry's live rooms
/// (`LocalRoomDirectory`); in a cluster, a room this node runs or one another node runs, which
/// the directory reaches through the cluster. The hub asks it once per viewer and sends the
/// viewer's inputs and its leaving to the endpoint it gets back. Called on the room thread.
@RoomActor public protocol RoomDirectory: AnyObject {
    /// Places `join.viewer` in room `join.request.room`: the endpoint its messages go to, or why
    /// it cannot join. A directory that must ask elsewhere first (a cluster's lease) returns an
    /// endpoint at once, sends the snapshot when it has the room, and closes the viewer's sink
    /// itself if the room cannot be had after all.
    func join(_ join: ViewerJoin) -> Result<RoomEndpoint, JoinFailure>
}

/// What a viewer's connection talks to once joined: a `Room` run here, or a cluster's stand-in
/// for a room run on another node. Called on the room thread.
@RoomActor public protocol RoomEndpoint: AnyObject {
    /// The room's name.
    var name: String { get }
    /// An input of viewer `viewer`, already past its rate limit.
    func handle(_ input: InputMessage, from viewer: String)
    /// Answers an input of viewer `viewer` with `refused` (e.g. the hub's rate limit).
    func refuse(_ inputID: UInt64, _ code: RefusalCode, _ reason: String, to viewer: String)
    /// Viewer `viewer` is gone.
    func leave(viewer: String)
    /// Viewer `viewer` asks for a keyframe (docs/protocol.md, "The inputs stream"), already past
    /// its rate limit: false when it does not take the inputs stream (a protocol error). A
    /// cluster's stand-in asks the room's owner.
    func requestKeyframe(for viewer: String) -> Bool
    /// A sharing message of viewer `viewer` (docs/protocol.md, "Sharing"), already past its rate
    /// limit. A cluster's stand-in passes it to the room's owner.
    func handleSharing(_ request: SharingRequest, from viewer: String)
}

/// A viewer asking to join, as the hub hands it to a directory.
public struct ViewerJoin {
    /// The viewer's name in its room (unique across nodes: the hub prefixes it in a cluster).
    public var viewer: String
    /// Where the viewer's messages go.
    public var sink: ViewerSink
    /// The protocol version the viewer speaks.
    public var version: WireVersion
    /// What the viewer asked for.
    public var request: JoinRequest
    /// The key the server made for a locked room this join would create (`request.lock`).
    public var newKey: String?

    /// A join.
    public init(viewer: String, sink: ViewerSink, version: WireVersion, request: JoinRequest, newKey: String?) {
        self.viewer = viewer
        self.sink = sink
        self.version = version
        self.request = request
        self.newKey = newKey
    }

    /// The scene the join asks for: the request's, else the catalogue's default.
    public func sceneName(in scenes: SceneCatalogue) -> String {
        request.scene ?? scenes.defaultName
    }
}

/// Why a viewer could not join a room.
public enum JoinFailure: Error, Sendable, Hashable {
    /// Creating the room would exceed `maxRooms`.
    case tooManyRooms(limit: Int)
    /// The catalogue has no scene of that name.
    case unknownScene(String)
    /// Another node runs the room (and this node cannot reach it).
    case ownedElsewhere(room: String)
    /// The store could not say whether the room existed before.
    case storeUnavailable(String)
    /// The cluster (its broker) cannot be reached, so nobody can say which node runs the room.
    case clusterUnavailable(String)

    /// How the viewer's connection is closed, except for `unknownScene`, which is a protocol
    /// error (an `error` message first).
    public var closeReason: CloseReason {
        switch self {
        case .unknownScene(let name): return CloseReason(.policyViolation, "unknown scene '\(name)'")
        case .tooManyRooms(let limit): return CloseReason(.tryAgainLater, "server full: \(limit) rooms")
        case .ownedElsewhere(let room): return CloseReason(.tryAgainLater, "room '\(room)' is busy on another node; try again")
        case .storeUnavailable: return CloseReason(.tryAgainLater, "room store unavailable; try again")
        case .clusterUnavailable: return CloseReason(.tryAgainLater, "cluster unavailable; try again")
        }
    }
}
