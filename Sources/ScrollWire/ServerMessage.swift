import ScrollEngine

/// Which input a frame reflects: the last input applied from the driving viewer.
public struct AppliedInput: Sendable, Equatable, Hashable {
    /// The viewer id (as in `snapshot.viewer`) of the connection that sent it.
    public var viewer: String
    /// The id that viewer gave the input.
    public var id: UInt64
    /// Creates an applied-input reference.
    public init(viewer: String, id: UInt64) { self.viewer = viewer; self.id = id }
}

/// What the server needs to send a `snapshot`: the room's state when a viewer joins.
public struct Snapshot: Sendable, Equatable {
    /// Room name.
    public var room: String
    /// The joining connection's viewer id.
    public var viewer: String
    /// How many viewers the room has, this one included.
    public var viewers: Int
    /// Viewer id of whoever holds the room with a gesture, if anyone.
    public var driver: String?
    /// The scene's fixed configuration (its `sections` are not used: see `sections`).
    public var configuration: SceneConfiguration
    /// The current row order; only section titles, header heights and row ids are sent.
    public var sections: [TableSection]
    /// The room's latest frame.
    public var frame: EffectFrame
    /// The input that frame reflects, as in a `frame` message.
    public var frameInput: AppliedInput?
    /// When that frame was (or is now) sent, ms since the Unix epoch.
    public var frameSentAt: Double
    /// The room's driver key: only for the viewer whose join created a locked room.
    public var driverKey: String?
    /// Catalogue name of the scene the room was created with (`sceneName`, e.g. "seed-table").
    public var sceneName: String
    /// Whether the room is locked: only holders of its driver key may drive.
    public var locked: Bool
    /// The room's life and move count, only for a viewer that asked (`join`'s `resumable`).
    public var resumePoint: ResumePoint?
    /// What a replica starts from, only for a viewer of the inputs stream (`replica`).
    public var replica: ReplicaStart?

    /// Creates a snapshot.
    public init(room: String, viewer: String, viewers: Int, driver: String?, configuration: SceneConfiguration,
                sections: [TableSection], frame: EffectFrame, frameInput: AppliedInput?, frameSentAt: Double,
                driverKey: String? = nil, sceneName: String, locked: Bool = false, resumePoint: ResumePoint? = nil,
                replica: ReplicaStart? = nil) {
        self.room = room; self.viewer = viewer; self.viewers = viewers; self.driver = driver
        self.configuration = configuration; self.sections = sections; self.frame = frame
        self.frameInput = frameInput; self.frameSentAt = frameSentAt; self.driverKey = driverKey
        self.sceneName = sceneName; self.locked = locked; self.resumePoint = resumePoint; self.replica = replica
    }
}

/// A decoded server message, for clients (the load generator, tests).
public enum ServerMessage: Sendable, Equatable {
    /// First message after `join`: the scene and the latest frame.
    case snapshot(SnapshotMessage)
    /// One frame of the room.
    case frame(FrameMessage)
    /// A row was moved by tap-and-hold; apply it to the order from the snapshot.
    case rowMoved(RowMovedMessage)
    /// Viewer count or driver changed; `locked` says whether only key holders may drive,
    /// `exploring` how many viewers explore (the rest follow), `granted` who else may drive.
    case presence(viewers: Int, driver: String?, locked: Bool, exploring: Int = 0, granted: [String] = [])
    /// A message about sharing the room (docs/protocol.md, "Sharing").
    case sharing(SharingNotice)
    /// An input was not applied: `code` for programs (a `RefusalCode` raw value, kept as text so
    /// newer codes still decode), `reason` for people.
    case refused(input: UInt64?, code: String, reason: String)
    /// A protocol error; the server closes the connection next.
    case error(String)
    /// The answer to a `join` whose `resume` the room honoured (instead of a snapshot).
    case resumed(ResumedMessage)
    /// A change the room applied to its scene (only for viewers whose join asked: `inputs`).
    case applied(AppliedMessage)
    /// How far the room's history is complete while no frame says it (only for viewers whose
    /// join asked: `complete`), with the hash of the room's frame in the inputs stream.
    case beat(BeatMessage)
    /// The changes of one period, for a viewer of the inputs stream.
    case batch(BatchMessage)
    /// One of this viewer's stamped inputs is held for its time (only to its sender).
    case held(HeldMessage)
    /// The answer to this client's `ping` with that `id`.
    case pong(id: UInt64)
}

/// A decoded `frame` message (also the `frame` inside a `snapshot`).
public struct FrameMessage: Sendable, Equatable {
    /// Per-room frame number.
    public var seq: UInt64
    /// Room clock, ms (`t`).
    public var time: Double
    /// Server wall clock when encoded, ms since the Unix epoch.
    public var sentAt: Double
    /// Last input applied from the driving viewer.
    public var input: AppliedInput?
    /// `ScrollPhase` raw value (kept as text so newer phases still decode; see `scrollPhase`).
    public var phase: String
    /// False when nothing changes without new input.
    public var animating: Bool
    /// The room's logical viewport.
    public var viewport: Size
    /// Table `contentOffset.y`.
    public var offset: Double
    /// Table content height.
    public var contentHeight: Double
    /// Visible rows.
    public var rows: [VisibleRow]
    /// Visible section headers.
    public var headers: [VisibleSectionHeader]
    /// Background scroll view's offset.
    public var backgroundOffset: Double
    /// Parallax layer positions.
    public var layers: [LayerPosition]
    /// Scroll indicator.
    public var indicator: IndicatorState
    /// Info panel, if shown.
    public var panel: InfoPanelState?
    /// Row lifted by tap-and-hold, if any.
    public var lifted: LiftedRowState?
    /// Where the lifted row will land, if any.
    public var placeholder: PlaceholderState?

    /// Number of visible rows.
    public var rowCount: Int { rows.count }
    /// The phase as the engine's type, or nil for a phase this version does not know.
    public var scrollPhase: ScrollPhase? { ScrollPhase(rawValue: phase) }

    /// Creates a frame message from its fields.
    public init(seq: UInt64, time: Double, sentAt: Double, input: AppliedInput?, phase: String, animating: Bool,
                viewport: Size, offset: Double, contentHeight: Double, rows: [VisibleRow],
                headers: [VisibleSectionHeader], backgroundOffset: Double, layers: [LayerPosition],
                indicator: IndicatorState, panel: InfoPanelState?, lifted: LiftedRowState?, placeholder: PlaceholderState?) {
        self.seq = seq; self.time = time; self.sentAt = sentAt; self.input = input; self.phase = phase
        self.animating = animating; self.viewport = viewport; self.offset = offset
        self.contentHeight = contentHeight; self.rows = rows; self.headers = headers
        self.backgroundOffset = backgroundOffset; self.layers = layers; self.indicator = indicator
        self.panel = panel; self.lifted = lifted; self.placeholder = placeholder
    }

    /// The engine frame this message describes. Insets are not part of a frame (they are in
    /// the snapshot's scene), so the caller supplies them; an unknown phase becomes `.idle`.
    public func effectFrame(insets: EdgeInsets) -> EffectFrame {
        EffectFrame(sequence: seq, time: time, lastInputID: input?.id, phase: scrollPhase ?? .idle,
                    isAnimating: animating, viewport: viewport, insets: insets, contentOffset: offset,
                    contentHeight: contentHeight, rows: rows, sectionHeaders: headers,
                    backgroundOffset: backgroundOffset, parallaxLayers: layers, indicator: indicator,
                    infoPanel: panel, liftedRow: lifted, placeholder: placeholder)
    }
}

/// A decoded `snapshot` message.
public struct SnapshotMessage: Sendable, Equatable {
    /// Protocol version (`protocol`), 1.
    public var protocolVersion: Int
    /// Room name.
    public var room: String
    /// This connection's viewer id.
    public var viewer: String
    /// Viewers in the room.
    public var viewers: Int
    /// Who holds the room, if anyone.
    public var driver: String?
    /// Catalogue name of the room's scene (`sceneName`; `ScrollWire.sceneNameWhenAbsent` when a
    /// snapshot has none).
    public var sceneName: String
    /// The scene.
    public var scene: SceneDescription
    /// The latest frame.
    public var frame: FrameMessage
    /// The room's driver key, when this viewer created a locked room.
    public var driverKey: String?
    /// Whether the room is locked (only key holders may drive).
    public var locked: Bool
    /// The room's life and move count (`life`, `moves`), present when the join asked.
    public var resumePoint: ResumePoint?
    /// What a replica starts from (`replica`), in the inputs stream.
    public var replica: ReplicaStart?

    /// Creates a snapshot message.
    public init(protocolVersion: Int, room: String, viewer: String, viewers: Int, driver: String?,
                sceneName: String = ScrollWire.sceneNameWhenAbsent,
                scene: SceneDescription, frame: FrameMessage, driverKey: String?, locked: Bool = false,
                resumePoint: ResumePoint? = nil, replica: ReplicaStart? = nil) {
        self.protocolVersion = protocolVersion; self.room = room; self.viewer = viewer
        self.viewers = viewers; self.driver = driver; self.sceneName = sceneName; self.scene = scene
        self.frame = frame; self.driverKey = driverKey; self.locked = locked; self.resumePoint = resumePoint
        self.replica = replica
    }
}

/// The `scene` of a snapshot: what stays fixed, plus the current row order.
public struct SceneDescription: Sendable, Equatable {
    /// The room's viewport when the snapshot was taken (frames carry later changes).
    public var viewport: Size
    /// Content insets.
    public var insets: EdgeInsets
    /// Table header height (where the parallax layers show).
    public var headerHeight: Double
    /// The background image, if any.
    public var background: BackgroundImage?
    /// Parallax layers, indexed as in frames' `layers[].i`.
    public var layers: [ParallaxLayer]
    /// Total number of rows.
    public var rowCount: Int
    /// Sections with their current row order.
    public var sections: [SectionOrder]

    /// Creates a scene description.
    public init(viewport: Size, insets: EdgeInsets, headerHeight: Double, background: BackgroundImage?,
                layers: [ParallaxLayer], rowCount: Int, sections: [SectionOrder]) {
        self.viewport = viewport; self.insets = insets; self.headerHeight = headerHeight
        self.background = background; self.layers = layers; self.rowCount = rowCount; self.sections = sections
    }
}

/// A section in a snapshot: title, header height and its rows' ids in display order.
public struct SectionOrder: Sendable, Equatable {
    /// Section title.
    public var title: String
    /// Header height; 0 for none.
    public var headerHeight: Double
    /// Row ids in display order (`rows` on the wire).
    public var rowIDs: [Int]
    /// Creates a section order.
    public init(title: String, headerHeight: Double, rowIDs: [Int]) {
        self.title = title; self.headerHeight = headerHeight; self.rowIDs = rowIDs
    }
}

/// A decoded `rowMoved` message.
public struct RowMovedMessage: Sendable, Hashable {
    /// The moved row's id (`rowId`).
    public var rowID: Int
    /// Its index path before the move.
    public var from: IndexPath
    /// Its index path after the move.
    public var to: IndexPath
    /// Viewer id of who moved it.
    public var by: String
    /// The move's number: moves in the room so far, this one included (`version` on the wire).
    public var rowMoveVersion: Int
    /// Creates a row-moved message.
    public init(rowID: Int, from: IndexPath, to: IndexPath, by: String, rowMoveVersion: Int) {
        self.rowID = rowID; self.from = from; self.to = to; self.by = by; self.rowMoveVersion = rowMoveVersion
    }
}

extension SnapshotMessage {
    /// The encoders' input that gives this message back: decoded messages re-encode through it
    /// (rows carry only their ids, which is all a snapshot's scene lists).
    var encodable: Snapshot {
        let configuration = SceneConfiguration(
            viewport: scene.viewport, insets: scene.insets, headerHeight: scene.headerHeight,
            parallaxLayers: scene.layers, background: scene.background, sections: [])
        let sections = scene.sections.map { section in
            TableSection(title: section.title, headerHeight: section.headerHeight,
                         rows: section.rowIDs.map { TableRow(id: $0, title: "") })
        }
        return Snapshot(
            room: room, viewer: viewer, viewers: viewers, driver: driver, configuration: configuration,
            sections: sections, frame: frame.effectFrame(insets: scene.insets), frameInput: frame.input,
            frameSentAt: frame.sentAt, driverKey: driverKey, sceneName: sceneName, locked: locked,
            resumePoint: resumePoint, replica: replica)
    }
}
