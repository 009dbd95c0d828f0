import ScrollEngine
import ScrollWire

/// A room's engine as a page runs it: the scene, the room's v2 texts table and the input the
/// last frame names, so that `frame(at:sequence:sentAt:)` gives the very bytes the server's room
/// sends for the same inputs (`sentAt` aside, which the caller chooses). Pure and deterministic;
/// compiled natively (the cross-check, `scrollcast-load`) and into the page's WebAssembly
/// (docs/wasm.md), from the same sources.
public struct EngineReplica: Sendable {
    /// The scene as of the last input applied.
    public internal(set) var scene: ScrollScene
    /// Catalogue name the replica was created with.
    public let sceneName: String
    /// The scene it was created with, in its first row order: what state bytes are written against.
    public let base: SceneConfiguration
    /// The room's texts as the frames are encoded against them (see `Texts`).
    public private(set) var texts: WireTextTable
    /// Which texts table frames are encoded against.
    public private(set) var textsSource: Texts = .own
    /// The input the next frame names (`frame.input` in the protocol): the last one applied.
    public internal(set) var lastApplied: AppliedInput?
    /// The server's texts table as a version-2 client received it (`receiveServerTexts`), which
    /// `serverFrameBytes` encodes against; the own table (`texts`) is for drawing.
    public var serverTexts = WireTextTable()

    /// Where the texts table comes from.
    public enum Texts: Sendable {
        /// Registered here, frame by frame, exactly as the server's room registers its frames.
        /// Two replicas (or a replica and a room) asked for the same frames agree byte for byte.
        case own
        /// Received from the server (`useServerTexts`): frames are encoded against the server's
        /// table and register nothing in it, so they compare with the server's frames even when
        /// the replica was asked for other frames than the server sent.
        case server
    }

    /// What `apply` did.
    public enum Outcome: Sendable, Equatable {
        case applied
        /// Applied, and a lifted row was dropped at a new place (the server commits it and sends
        /// `rowMoved`; a replica only predicts it).
        case rowMoved(rowID: Int, from: IndexPath, to: IndexPath)
        case rejected(InputRejection)
    }

    /// A replica of a room created from the catalogue scene `name`, at rest at the top; nil for
    /// a name that is not a built-in scene (`ReplicaScenes`).
    public init?(sceneNamed name: String) {
        guard let configuration = ReplicaScenes.configuration(named: name) else { return nil }
        self.init(sceneNamed: name, configuration: configuration)
    }

    /// A replica of a room of any scene, `configuration` (a file or uploaded scene's, from
    /// `SceneBytes`), called `name`, at rest at the top.
    public init(sceneNamed name: String, configuration: SceneConfiguration) {
        sceneName = name
        base = configuration
        scene = ScrollScene(configuration: configuration)
        texts = WireTextTable()
    }

    /// Puts the scene at rest as a snapshot describes it: rows in `order` (ids per section),
    /// the viewport `viewport`, the content at `offset` (clamped, as a room restores it). Returns
    /// false, changing nothing, when `order` is not a rearrangement of the scene's rows or the
    /// viewport is not a positive finite size. The texts table and the last input are kept.
    public mutating func restore(order: [[Int]], viewport: Size, restingAt offset: Double) -> Bool {
        guard viewport.width.isFinite, viewport.height.isFinite, viewport.width > 0, viewport.height > 0,
              var configuration = scene.configuration.reorderingRows(order) else { return false }
        configuration.viewport = viewport
        scene = ScrollScene(configuration: configuration, restingAt: offset)
        return true
    }

    /// Applies `event` as the room applied it (its time already mapped to room time), on behalf
    /// of `viewer`. A rejected input changes nothing, as in the room. With `namesFrames` false
    /// (a gesture the room cancelled itself: an `applied` message whose cause is not `input`)
    /// later frames keep naming the input before, as the room's do.
    public mutating func apply(_ event: InputEvent, viewer: String, namesFrames: Bool = true) -> Outcome {
        let changes: [SceneChange]
        do {
            changes = try scene.apply(event)
        } catch {
            return .rejected(error)
        }
        if namesFrames { lastApplied = AppliedInput(viewer: viewer, id: event.id) }
        for change in changes {
            switch change {
            case .rowMoved(let rowID, let from, let to): return .rowMoved(rowID: rowID, from: from, to: to)
            }
        }
        return .applied
    }

    /// The frame at room time `time`, stamped with `sequence` and encoded as the room encodes it
    /// (`ServerMessageEncoderV2.frame`, with its texts registered and the rows ahead of it),
    /// with `sentAt` in place of the wall clock. `texts` is the `texts` message the room would
    /// send first, if the frame shows anything new (with `.server` texts it is only informative).
    public mutating func frame(at time: Double, sequence: UInt64, sentAt: Double)
        -> (frame: EffectFrame, texts: [UInt8]?, bytes: [UInt8]) {
        var frame = scene.frame(at: time)
        frame.sequence = sequence
        let sections = scene.sections
        var table = texts
        let encoded = ServerMessageEncoderV2.frame(frame, input: lastApplied, sentAt: sentAt, texts: &table,
                                                   ahead: { WireTextTable.upcoming(around: frame, in: sections) })
        if case .own = textsSource { texts = table }
        return (frame, encoded.texts, encoded.frame)
    }

    /// Encodes later frames against `table` (the texts a v2 client received from the server:
    /// `ServerMessageDecoderV2.texts`) and registers nothing in it, so they compare with the
    /// server's frames even when the replica was asked for other frames than the server sent.
    /// A native client keeps this in step with its decoder; the page's WebAssembly does not
    /// carry the decoder yet (docs/wasm.md, "Next").
    public mutating func useServerTexts(_ table: WireTextTable) {
        texts = table
        textsSource = .server
    }
}
