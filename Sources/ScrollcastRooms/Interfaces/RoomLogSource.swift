import ScrollEngine
import ScrollcastRecording
import Synchronization

/// A store that keeps each life of a room's log whole and can hand one back: what recordings
/// are made of (`GET /recording`, `scrollcast record`). `SQLiteRoomStore` is one.
/// `InMemoryRoomStore` is not: it keeps only a room's latest log entries, and a recording
/// without its beginning cannot be replayed.
public protocol RoomLogSource: AnyObject {
    /// Life `life` of room `name` (nil: its latest), or nil when the store has no room of that
    /// name. Throws when the store cannot read, or has no such life or not its start.
    func roomLife(named name: String, life: Int?) throws(RoomStoreError) -> RoomLife?
    /// A reader of room `name`'s latest life for an export: made on the room thread, read on
    /// an export worker, so a long log is never read on the room thread. The default reads the
    /// life here with `roomLife` (right for stores in memory, whose read is a copy).
    func latestLifeReader(room name: String) -> RoomLifeReader
}

extension RoomLogSource {
    public func latestLifeReader(room name: String) -> RoomLifeReader {
        SnapshotLifeReader(Result { () throws(RoomStoreError) in try roomLife(named: name, life: nil) })
    }
}

/// One life of a room read in pieces, off the room thread (by a recording export's worker):
/// `start` first, then `nextEntries` until it gives none.
public protocol RoomLifeReader: Sendable {
    /// Where the life started; nil when the store has no room of that name.
    func start() throws(RoomStoreError) -> RoomLifeStart?
    /// The next at most `limit` entries of the life's log, in order; empty at its end.
    func nextEntries(limit: Int) throws(RoomStoreError) -> [RoomLogEntry]
}

/// How a life of a room began: its scene, and the row order and move count it started with.
public struct RoomLifeStart: Sendable, Hashable {
    /// The room.
    public var room: String
    /// Which life, from 1.
    public var life: Int
    /// The catalogue name of its scene.
    public var sceneName: String
    /// Row ids of each section when the life began; empty: the scene's own order.
    public var startingRowOrder: [[Int]]
    /// Row moves the room had made before this life.
    public var startingRowMoveVersion: Int
    /// The digest of the room's driver key when it is locked (`DriverKey.digest`): its recording
    /// is given only to whoever shows that key (docs/recording.md). Nil: an open room.
    public var driverKeyDigest: String?

    /// A life's start.
    public init(room: String, life: Int, sceneName: String, startingRowOrder: [[Int]], startingRowMoveVersion: Int,
                driverKeyDigest: String? = nil) {
        self.room = room
        self.life = life
        self.sceneName = sceneName
        self.startingRowOrder = startingRowOrder
        self.startingRowMoveVersion = startingRowMoveVersion
        self.driverKeyDigest = driverKeyDigest
    }

    /// The recording's header line (docs/recording.md), its starting order spelled out from
    /// `scenes` when the life started with the scene's own. Throws when the scene is not in
    /// `scenes`.
    public func recordingHeader(scenes: SceneCatalogue, framePeriod: Double?) throws(RoomStoreError) -> RecordingHeader {
        var order = startingRowOrder
        if order.isEmpty {
            guard let configuration = scenes.configuration(named: sceneName) else {
                throw RoomStoreError("room '\(room)' shows scene '\(sceneName)', which this build's catalogue lacks (it has \(scenes.namesList))")
            }
            order = configuration.rowOrder
        }
        return RecordingHeader(room: room, life: life, scene: sceneName, rowOrder: order,
                               rowMoveVersion: startingRowMoveVersion, framePeriod: framePeriod)
    }
}

/// Turns a life's log entries into recording entries one by one, checking that its frames run
/// 1, 2, 3… (a log whose beginning is gone cannot be replayed).
public struct RecordingEntryChecker: Sendable {
    private let room: String
    private let life: Int
    private var expected: UInt64 = 1

    /// A checker for life `life` of room `room`.
    public init(room: String, life: Int) {
        self.room = room
        self.life = life
    }

    /// The recording entry for the next log entry.
    public mutating func entry(for entry: RoomLogEntry) throws(RoomStoreError) -> RecordingEntry {
        switch entry {
        case let .input(viewer, event):
            return .input(viewer: viewer, event: event)
        case let .cancel(viewer, event, _):
            // A recording's `cancel` names no cause: a replay applies every cancel alike.
            return .cancel(viewer: viewer, event: event)
        case let .frame(sequence, time):
            guard sequence == expected else {
                throw RoomStoreError(expected == 1
                    ? "the log of room '\(room)' life \(life) starts at frame \(sequence), not 1: its beginning is missing, so it cannot be replayed"
                    : "the log of room '\(room)' life \(life) skips from frame \(expected - 1) to \(sequence)")
            }
            expected += 1
            return .frame(sequence: sequence, time: time)
        }
    }
}

/// A life read whole at once, then handed out in pieces.
final class SnapshotLifeReader: RoomLifeReader {
    private let life: Result<RoomLife?, RoomStoreError>
    private let position = Mutex(0)

    init(_ life: Result<RoomLife?, RoomStoreError>) { self.life = life }

    func start() throws(RoomStoreError) -> RoomLifeStart? { try life.get()?.start }

    func nextEntries(limit: Int) throws(RoomStoreError) -> [RoomLogEntry] {
        guard let entries = try life.get()?.entries else { return [] }
        return position.withLock { position in
            let end = min(entries.count, position + limit)
            defer { position = end }
            return Array(entries[position..<end])
        }
    }
}

/// One life of a room, as its store kept it: where it started, and its log. A room starts a new
/// life each time it is made in memory (created, or restored after eviction or a restart): its
/// clock and frame numbers start again from 0, so a recording is of one life.
public struct RoomLife: Sendable, Hashable {
    /// The room.
    public var room: String
    /// Which life, from 1.
    public var life: Int
    /// The catalogue name of its scene.
    public var sceneName: String
    /// Row ids of each section when the life began; empty: the scene's own order (a room
    /// created rather than restored).
    public var startingRowOrder: [[Int]]
    /// Row moves the room had made before this life.
    public var startingRowMoveVersion: Int
    /// The life's log, in order.
    public var entries: [RoomLogEntry]
    /// The digest of the room's driver key when it is locked; nil: an open room.
    public var driverKeyDigest: String?

    /// A life of a room.
    public init(room: String, life: Int, sceneName: String, startingRowOrder: [[Int]], startingRowMoveVersion: Int,
                entries: [RoomLogEntry], driverKeyDigest: String? = nil) {
        self.room = room
        self.life = life
        self.sceneName = sceneName
        self.startingRowOrder = startingRowOrder
        self.startingRowMoveVersion = startingRowMoveVersion
        self.entries = entries
        self.driverKeyDigest = driverKeyDigest
    }

    /// The life as a recording (docs/recording.md), its starting order spelled out from
    /// `scenes` when the room started with the scene's own. `framePeriod` is the period the
    /// room ran with, if known. Throws when the scene is not in `scenes`, or when the log does
    /// not start with the life's first frame (its beginning is gone, so it cannot be replayed).
    public func recording(scenes: SceneCatalogue, framePeriod: Double?) throws(RoomStoreError) -> Recording {
        let header = try start.recordingHeader(scenes: scenes, framePeriod: framePeriod)
        var checker = RecordingEntryChecker(room: room, life: life)
        var entries: [RecordingEntry] = []
        entries.reserveCapacity(self.entries.count)
        for entry in self.entries { entries.append(try checker.entry(for: entry)) }
        return Recording(header: header, entries: entries)
    }

    /// Where the life began.
    public var start: RoomLifeStart {
        RoomLifeStart(room: room, life: life, sceneName: sceneName, startingRowOrder: startingRowOrder,
                      startingRowMoveVersion: startingRowMoveVersion, driverKeyDigest: driverKeyDigest)
    }
}
