import ScrollEngine

/// One life of a room, as a file another program can read or write: where the room started, and
/// everything it applied and when it took each frame (docs/recording.md). Replaying it with the
/// same scene catalogue gives back the frames the room's viewers received, byte for byte.
public struct Recording: Sendable, Hashable {
    /// Where the room started.
    public var header: RecordingHeader
    /// What the room applied, and when it took frames, in order. Entry `i` is on line `i + 2`
    /// of the file.
    public var entries: [RecordingEntry]

    /// A recording of `entries` from `header`'s starting state.
    public init(header: RecordingHeader, entries: [RecordingEntry]) {
        self.header = header
        self.entries = entries
    }

    /// The line of the file entry `index` is on.
    public static func line(ofEntry index: Int) -> Int { index + 2 }
}

/// The first line: which room, which scene, and the state the room started from.
public struct RecordingHeader: Sendable, Hashable {
    /// The format version this build writes, and the newest it reads.
    public static let currentVersion = 1

    /// The room's name.
    public var room: String
    /// Which life of the room (1 for the first; a room restored after eviction or a restart
    /// starts a new life, with its clock and frame numbers from 0 again); nil when unknown.
    public var life: Int?
    /// The catalogue name of the room's scene (`SceneCatalogue`: `demo`, `seed-table`).
    public var scene: String
    /// Row ids of each section when the life started: the scene's own order, or the order a
    /// restored room came back with.
    public var rowOrder: [[Int]]
    /// How many rows the room had moved before this life (`rowMoved.version` goes on from it).
    public var rowMoveVersion: Int
    /// The frame period the room ran with, ms (1000 / fps); nil when unknown. Replay does not
    /// need it: every frame's room time is in the recording.
    public var framePeriod: Double?
    /// An uploaded scene's JSON file as it was uploaded (docs/scenes.md, "Uploads"), so the
    /// recording replays without the server that kept it; nil for built-in and file scenes.
    public var sceneFile: String?

    /// A header.
    public init(room: String, life: Int? = nil, scene: String, rowOrder: [[Int]], rowMoveVersion: Int = 0,
                framePeriod: Double? = nil, sceneFile: String? = nil) {
        self.sceneFile = sceneFile
        self.room = room
        self.life = life
        self.scene = scene
        self.rowOrder = rowOrder
        self.rowMoveVersion = rowMoveVersion
        self.framePeriod = framePeriod
    }
}

/// One line after the header.
public enum RecordingEntry: Sendable, Hashable {
    /// An input as the room applied it: from `viewer`, with the id that viewer gave it, at room
    /// time (`event.time`, after the room mapped the viewer's clock onto its own). Frames after
    /// it name it as their `input`.
    case input(viewer: String, event: InputEvent)
    /// A cancel the room applied itself when `viewer` left in the middle of a gesture
    /// (`pointerCancel` or `longPressCancel`; `event.id` is the viewer's last input id). Frames
    /// after it still name the last `input`.
    case cancel(viewer: String, event: InputEvent)
    /// The room took frame `sequence` at room time `time`.
    case frame(sequence: UInt64, time: Double)
}

/// Why a recording could not be read or replayed, and on which line.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line (from 1) the problem is on.
    public var line: Int
    /// What is wrong.
    public var message: String

    /// A problem on `line`.
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    /// "line 7: field 'seq' must be …".
    public var description: String { "line \(line): \(message)" }
}
