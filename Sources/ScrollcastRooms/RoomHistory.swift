import ScrollEngine
import ScrollWire

/// What a room keeps so that a viewer whose connection dropped can resume where it was
/// (docs/protocol.md, "Resuming"): the reliable messages every viewer was sent that cannot be
/// rebuilt from the room's present state — row moves (a viewer must apply each one) and, for
/// version 2, `texts` (and the points where the room's text table started afresh). Presence, the
/// driver and the lock are sent as they are now, and frames only as the latest one, so none of
/// them is kept.
///
/// Each record is stamped with the `seq` of the last frame sent before it. A viewer whose last
/// frame was S has every reliable message sent before frame S (a connection writes its reliable
/// queue before its frame), so it may lack only records stamped S or later. The history is
/// bounded (`Limits`): when a record is dropped, resumes from before it get a snapshot.
public struct RoomHistory: Sendable {
    /// How much a room keeps.
    public struct Limits: Sendable, Hashable {
        /// Most records (row moves, texts messages, table restarts).
        public var maxRecords: Int
        /// Most bytes of kept `texts` messages (row moves count 32 bytes each).
        public var maxBytes: Int

        /// The server's limits: 1,024 records, 64 KiB (past that, a snapshot of the demo room in
        /// version 2, whose size docs/protocol.md gives, costs less than the texts it would replay).
        public static let standard = Limits(maxRecords: 1024, maxBytes: 64 * 1024)

        /// Limits of a history.
        public init(maxRecords: Int, maxBytes: Int) {
            self.maxRecords = maxRecords
            self.maxBytes = maxBytes
        }
    }

    /// A row move as announced in `rowMoved`.
    public typealias RowMove = RowMovedMessage

    /// One reliable message (or event) the room's viewers were sent.
    public enum Entry: Sendable, Hashable {
        /// A `rowMoved`, sent to every viewer.
        case rowMoved(RowMove)
        /// A version-2 `texts` message, as sent to the version-2 viewers.
        case texts([UInt8])
        /// The room's text table started afresh: version-2 viewers from before hold numbers
        /// (labels) that no longer mean what they did.
        case textsReset

        var bytes: Int {
            switch self {
            case .rowMoved: return 32
            case .texts(let bytes): return bytes.count
            case .textsReset: return 1
            }
        }
    }

    struct Record: Sendable, Hashable {
        /// `seq` of the last frame sent before the entry.
        var afterFrame: UInt64
        var entry: Entry
    }

    /// Why a resume gets a snapshot instead.
    public enum Refusal: String, Sendable, Hashable {
        /// The life named is not this room's (an older run, another node's, or made up).
        case otherLife
        /// The `seq` named is later than any frame the room sent.
        case seqNeverSent
        /// The move count named is higher than the room's.
        case movesNeverMade
        /// The move count is lower than the moves the viewer must have had by its `seq`.
        case movesInconsistent
        /// What the viewer missed is older than the history keeps.
        case beyondHistory
        /// (Version 2) the room's text table started afresh since.
        case textsRestarted
    }

    /// What a resuming viewer is sent.
    public enum Decision: Sendable, Hashable {
        /// A full snapshot, as for a new viewer.
        case snapshot(Refusal)
        /// The moves it missed (in order), the `texts` messages it may have missed (version 2),
        /// then the latest frame if it missed any.
        case replay(moves: [RowMove], texts: [[UInt8]])
    }

    public let limits: Limits
    private(set) var records: [Record] = []
    private var bytes = 0
    /// Resumes from a `seq` below this lack something that was dropped.
    public private(set) var horizon: UInt64

    /// An empty history of a room whose frames start after `firstSequence`.
    public init(firstSequence: UInt64, limits: Limits = .standard) {
        self.horizon = firstSequence
        self.limits = limits
    }

    /// Records held.
    public var count: Int { records.count }
    /// Bytes held (as `Limits.maxBytes` counts them).
    public var byteCount: Int { bytes }

    /// Keeps `entry`, sent after frame `afterFrame`, dropping the oldest records beyond the limits.
    public mutating func record(_ entry: Entry, afterFrame: UInt64) {
        records.append(Record(afterFrame: afterFrame, entry: entry))
        bytes += entry.bytes
        var dropped = 0
        while records.count - dropped > limits.maxRecords || (bytes > limits.maxBytes && records.count - dropped > 1) {
            let oldest = records[dropped]
            bytes -= oldest.entry.bytes
            // A viewer past this record's frame had every message before it.
            horizon = max(horizon, oldest.afterFrame + 1)
            dropped += 1
        }
        if dropped > 0 { records.removeFirst(dropped) }
    }

    /// The row moves after move `after` up to move `latest`, in order, or nil when the history no
    /// longer holds every one of them (or `after` is beyond `latest`): a resume of the inputs
    /// stream, which names changes, not frames.
    public func moves(after: Int, upTo latest: Int) -> [RowMove]? {
        guard after <= latest else { return nil }
        var missed: [RowMove] = []
        for record in records {
            if case .rowMoved(let move) = record.entry, move.rowMoveVersion > after { missed.append(move) }
        }
        guard missed.count == latest - after,
              missed.enumerated().allSatisfy({ $0.element.rowMoveVersion == after + 1 + $0.offset }) else { return nil }
        return missed
    }

    /// What to send a viewer of `version` resuming with `request`, in a room of life `life`
    /// whose last frame is `sequence` and whose viewers were told of `rowMoveVersion` row moves.
    public func decide(_ request: ResumeRequest, life: UInt64, sequence: UInt64, rowMoveVersion: Int,
                       version: WireVersion) -> Decision {
        guard request.life == life else { return .snapshot(.otherLife) }
        guard request.seq <= sequence else { return .snapshot(.seqNeverSent) }
        guard request.rowMoveVersion <= rowMoveVersion else { return .snapshot(.movesNeverMade) }
        guard request.seq >= horizon else { return .snapshot(.beyondHistory) }
        var missed: [RowMove] = []
        var texts: [[UInt8]] = []
        for record in records {
            switch record.entry {
            case .rowMoved(let move):
                // Moves announced before the viewer's frame reached it.
                if record.afterFrame < request.seq, move.rowMoveVersion > request.rowMoveVersion { return .snapshot(.movesInconsistent) }
                if move.rowMoveVersion > request.rowMoveVersion { missed.append(move) }
            case .texts(let bytes):
                if version == .v2, record.afterFrame >= request.seq { texts.append(bytes) }
            case .textsReset:
                if version == .v2, record.afterFrame >= request.seq { return .snapshot(.textsRestarted) }
            }
        }
        // Every move after the viewer's must be here, one per version, in order.
        guard missed.count == rowMoveVersion - request.rowMoveVersion,
              missed.enumerated().allSatisfy({ $0.element.rowMoveVersion == request.rowMoveVersion + 1 + $0.offset }) else {
            return .snapshot(.beyondHistory)
        }
        return .replay(moves: missed, texts: texts)
    }
}
