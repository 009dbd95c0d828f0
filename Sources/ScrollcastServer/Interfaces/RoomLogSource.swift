import ScrollEngine
import ScrollcastRecording

/// A store that keeps each life of a room's log whole and can hand one back: what recordings
/// are made of (`GET /recording`, `scrollcast record`). `SQLiteRoomStore` is one.
/// `InMemoryRoomStore` is not: it keeps only a room's latest log entries, and a recording
/// without its beginning cannot be replayed.
public protocol RoomLogSource: AnyObject {
    /// Life `life` of room `name` (nil: its latest), or nil when the store has no room of that
    /// name. Throws when the store cannot read, or has no such life or not its start.
    func roomLife(named name: String, life: Int?) throws(RoomStoreError) -> RoomLife?
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

    /// A life of a room.
    public init(room: String, life: Int, sceneName: String, startingRowOrder: [[Int]], startingRowMoveVersion: Int,
                entries: [RoomLogEntry]) {
        self.room = room
        self.life = life
        self.sceneName = sceneName
        self.startingRowOrder = startingRowOrder
        self.startingRowMoveVersion = startingRowMoveVersion
        self.entries = entries
    }

    /// The life as a recording (docs/recording.md), its starting order spelled out from
    /// `scenes` when the room started with the scene's own. `framePeriod` is the period the
    /// room ran with, if known. Throws when the scene is not in `scenes`, or when the log does
    /// not start with the life's first frame (its beginning is gone, so it cannot be replayed).
    public func recording(scenes: SceneCatalogue, framePeriod: Double?) throws(RoomStoreError) -> Recording {
        var order = startingRowOrder
        if order.isEmpty {
            guard let configuration = scenes.configuration(named: sceneName) else {
                throw RoomStoreError("room '\(room)' shows scene '\(sceneName)', which this build's catalogue lacks (it has \(scenes.namesList))")
            }
            order = configuration.rowOrder
        }
        var entries: [RecordingEntry] = []
        entries.reserveCapacity(self.entries.count)
        var expected: UInt64 = 1
        for entry in self.entries {
            switch entry {
            case let .input(viewer, event):
                entries.append(.input(viewer: viewer, event: event))
            case let .cancelOnLeave(viewer, event):
                entries.append(.cancel(viewer: viewer, event: event))
            case let .frame(sequence, time):
                guard sequence == expected else {
                    throw RoomStoreError(expected == 1
                        ? "the log of room '\(room)' life \(life) starts at frame \(sequence), not 1: its beginning is missing, so it cannot be replayed"
                        : "the log of room '\(room)' life \(life) skips from frame \(expected - 1) to \(sequence)")
                }
                expected += 1
                entries.append(.frame(sequence: sequence, time: time))
            }
        }
        let header = RecordingHeader(room: room, life: life, scene: sceneName, rowOrder: order,
                                     rowMoveVersion: startingRowMoveVersion, framePeriod: framePeriod)
        return Recording(header: header, entries: entries)
    }
}
