import ScrollEngine

/// A client message, validated: every field present, of the right type and within its limits.
public enum ClientMessage: Sendable, Equatable {
    /// `join`: the first message on a connection.
    case join(JoinRequest)
    /// `input`: one raw input for the room's scene.
    case input(InputMessage)
    /// `ask`, `grant`, `deny`, `view` or `callBack` (docs/protocol.md, "Sharing").
    case sharing(SharingRequest)
    /// `keyframe`: an inputs-stream viewer asks for a fresh snapshot of the engine's state.
    case keyframe
    /// `ping`: the connection's node answers `pong` with the same `id` at once (a round trip the
    /// client times itself).
    case ping(id: UInt64)
}

/// A `join` message: the room to watch and, optionally, how to drive it.
public struct JoinRequest: Sendable, Equatable {
    /// Room name; satisfies `ScrollWire.isValidRoomName`.
    public var room: String
    /// Free text describing the client, for logs (≤ 64 scalars, no control characters).
    public var client: String?
    /// Key of a locked room, to drive it; satisfies `ScrollWire.isValidDriverKey`.
    public var driverKey: String?
    /// When this join creates the room: only holders of its driver key may drive.
    public var lock: Bool
    /// When this join creates the room: the name of the scene it starts with (nil: the server's
    /// default). The server's scene catalogue decides which names exist; joining an existing
    /// room gets that room's scene whatever this says.
    public var scene: String?
    /// Asks for the room's life in the snapshot, so that a later connection may resume
    /// (`resumable`; implied by `resume`).
    public var resumable: Bool
    /// Where the viewer was, to resume there rather than take a snapshot (`resume`).
    public var resume: ResumeRequest?
    /// Asks to be sent every change the room applies to its scene (`applied` messages), so a
    /// replica of the engine can compute the frames itself (`inputs`).
    public var inputs: Bool
    /// Asks to be told how far the room's history is complete (`complete` in `applied`, `beat`
    /// messages); only with `inputs`.
    public var complete: Bool
    /// Which stream the viewer asks for (`stream`; docs/protocol.md, "The inputs stream").
    public var stream: ViewerStream
    /// The engine version the viewer replicates (`engine`), asked with the inputs stream.
    public var engine: UInt32?
    /// The batch period the viewer asks for, ms (`batchMs`, in `ScrollWire.batchPeriodRange`),
    /// with the inputs stream; nil: one frame period.
    public var batchMs: Int?

    /// Creates a join request.
    public init(room: String, client: String? = nil, driverKey: String? = nil, lock: Bool = false,
                scene: String? = nil, resumable: Bool = false, resume: ResumeRequest? = nil, inputs: Bool = false,
                complete: Bool = false, stream: ViewerStream = .frames, engine: UInt32? = nil, batchMs: Int? = nil) {
        self.room = room; self.client = client; self.driverKey = driverKey; self.lock = lock
        self.scene = scene; self.resumable = resumable; self.resume = resume; self.inputs = inputs
        self.complete = complete; self.stream = stream; self.engine = engine
        self.batchMs = batchMs
    }

    /// Whether the viewer is told the room's life (it asked to resume, or to be able to).
    public var wantsResumePoint: Bool { resumable || resume != nil }
}

/// An `input` message: the client's id and timestamp for one raw input.
public struct InputMessage: Sendable, Equatable {
    /// Chosen by the client, in `ScrollWire.idRange`; frames name the last one applied.
    public var id: UInt64
    /// The client's own event time, ms (`t` on the wire). Only differences between one
    /// client's times carry meaning; the server maps them onto the room clock.
    public var clientTime: Double
    /// What happened.
    public var kind: InputKind
    /// The room time the client drew it at, ms (`at`), when it keeps the room's clock: the room
    /// applies an input stamped ahead of its present at that time (`InputTimeMapper`).
    public var at: Double?

    /// Creates an input message.
    public init(id: UInt64, clientTime: Double, kind: InputKind, at: Double? = nil) {
        self.id = id; self.clientTime = clientTime; self.kind = kind; self.at = at
    }
}

/// Wire names of the input kinds (`kind` in an `input` message), one per `InputKind` case.
public enum InputKindName: String, Sendable, CaseIterable {
    /// `InputKind.pointerDown`.
    case pointerDown
    /// `InputKind.pointerMoved`.
    case pointerMove
    /// `InputKind.pointerUp`.
    case pointerUp
    /// `InputKind.pointerCancelled`.
    case pointerCancel
    /// `InputKind.wheel`.
    case wheel
    /// `InputKind.key`.
    case key
    /// `InputKind.scrollToRow`.
    case scrollToRow
    /// `InputKind.longPressBegan`.
    case longPressBegan
    /// `InputKind.longPressMoved`.
    case longPressMove
    /// `InputKind.longPressEnded`.
    case longPressEnd
    /// `InputKind.longPressCancelled`.
    case longPressCancel
    /// `InputKind.resize`.
    case resize
    /// `InputKind.reducedMotion`.
    case reducedMotion

    /// The wire name of an input kind.
    public init(_ kind: InputKind) {
        switch kind {
        case .pointerDown: self = .pointerDown
        case .pointerMoved: self = .pointerMove
        case .pointerUp: self = .pointerUp
        case .pointerCancelled: self = .pointerCancel
        case .wheel: self = .wheel
        case .key: self = .key
        case .scrollToRow: self = .scrollToRow
        case .longPressBegan: self = .longPressBegan
        case .longPressMoved: self = .longPressMove
        case .longPressEnded: self = .longPressEnd
        case .longPressCancelled: self = .longPressCancel
        case .resize: self = .resize
        case .reducedMotion: self = .reducedMotion
        }
    }
}
