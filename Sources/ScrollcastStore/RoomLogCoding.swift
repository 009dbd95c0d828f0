import GRDB
import ScrollEngine
import ScrollcastRooms

/// One entry of a room's log as read back from the file.
public struct StoredLogEntry: Sendable, Hashable {
    /// The life of the room it belongs to (see `RoomSchema`): 1 for the first, growing each time
    /// the room is made again in memory. Room times and frame numbers restart with each life.
    public var life: Int
    /// The entry, exactly as the room appended it.
    public var entry: RoomLogEntry

    /// An entry of life `life`.
    public init(life: Int, entry: RoomLogEntry) {
        self.life = life
        self.entry = entry
    }
}

/// The `roomLog.entry` names, and rows back into `RoomLogEntry`s.
enum RoomLogCoding {
    static let input = "input"
    static let frame = "frame"

    /// The `entry` of a cancel for `cause`. Before causes had names of their own every cancel
    /// was written `cancelOnLeave`, so such older rows read back as leaves.
    static func cancel(_ cause: RoomLogEntry.CancelCause) -> String {
        switch cause {
        case .leave: "cancelOnLeave"
        case .unavailable: "cancelOnUnavailable"
        case .takeBack: "cancelOnTakeBack"
        }
    }

    /// The cause of a cancel whose `entry` is `name`; nil for any other entry.
    static func cancelCause(named name: String) -> RoomLogEntry.CancelCause? {
        RoomLogEntry.CancelCause.allCases.first { cancel($0) == name }
    }

    /// The `entry` of `entry`.
    static func name(of entry: RoomLogEntry) -> String {
        switch entry {
        case .input: input
        case .cancel(_, _, let cause): cancel(cause)
        case .frame: frame
        }
    }

    /// The columns `decode` reads, in the order it reads them by position. Readers select these
    /// (not `*`): GRDB's lookup of a column by name folds its case on every call, which was the
    /// largest single cost of exporting a long recording.
    static let selectedColumns = "id, life, entry, viewer, inputID, time, sequence, input"

    /// The id of `row`, a row of `selectedColumns`.
    static func id(of row: Row) -> Int64 { row[0] }

    /// The entry `row` holds, as `decode(_:)`; a row the writer does not make is an error naming
    /// its id, room `room` and, when given, the file at `path`.
    static func decode(_ row: Row, room: String, file path: String?) throws(RoomStoreError) -> StoredLogEntry {
        guard let stored = decode(row) else {
            throw RoomStoreError("unreadable log entry \(id(of: row)) of room '\(room)'" + (path.map { " in \($0)" } ?? ""))
        }
        return stored
    }

    /// The entry `row` (a `roomLog` row of `selectedColumns`) holds, or nil if the row is not
    /// one the writer makes.
    static func decode(_ row: Row) -> StoredLogEntry? {
        let life: Int = row[1]
        let time: Double = row[5]
        switch row[2] as String {
        case frame:
            guard let sequence = row[6] as Int64? else { return nil }
            return StoredLogEntry(life: life, entry: .frame(sequence: UInt64(bitPattern: sequence), time: time))
        case let name:
            let cause = name == input ? nil : cancelCause(named: name)
            guard name == input || cause != nil,
                  let viewer = row[3] as String?, let id = row[4] as Int64?,
                  let text = row[7] as String?, let kind = InputKindCoding.decode(text) else { return nil }
            let event = InputEvent(id: UInt64(bitPattern: id), time: time, kind: kind)
            return StoredLogEntry(life: life, entry: cause.map { .cancel(viewer: viewer, event: event, cause: $0) }
                                                     ?? .input(viewer: viewer, event: event))
        }
    }
}
