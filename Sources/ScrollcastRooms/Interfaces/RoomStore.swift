import ScrollEngine
import ScrollWire

/// Where a room's durable state goes: its settings when it is made, every row move before it is
/// announced, and a log of what it applied, so it can be restored (after a restart, or on
/// another node) and replayed. `InMemoryRoomStore` keeps it for as long as the room lives; a
/// durable store keeps it across restarts. Called only on the room thread; a store that writes
/// elsewhere hands its completions back through the `RoomScheduler`.
@RoomActor public protocol RoomStore: AnyObject {
    /// What is stored of room `name`, to restore it on its first join; nil if nothing is.
    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom?
    /// `loadRoom` for a join: a store that reads a file or a network reads on its own thread
    /// and calls `completion` on the room thread (through the `RoomScheduler`), so the rooms
    /// never wait for it. The default calls `loadRoom` and `completion` at once.
    func loadRoom(named name: String, completion: @escaping (Result<StoredRoom?, RoomStoreError>) -> Void)
    /// A room was created (not restored) with these settings.
    func roomCreated(_ settings: RoomSettings)
    /// Appends to the room's log. Must not block the room thread.
    func append(_ entry: RoomLogEntry, toRoom room: String)
    /// Makes a row move durable, then calls `completion` on the room thread. The room announces
    /// the move only after a success, so no viewer sees a move that a crash undoes. Completions
    /// come in the order the moves were committed.
    ///
    /// A move is kept only on top of the one before it: it fails unless the room's stored
    /// `rowMoveVersion` is `move.rowMoveVersion − 1`. So when a move fails, the moves the room built on
    /// it fail too, and the store never holds an order the room has taken back.
    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void)
    /// The room left memory (it had no viewers for its grace period).
    func roomEvicted(named name: String)

    /// Whether writes are going through now. False once a write has failed (disk full, file made
    /// read-only), until a later one succeeds; while false, rooms refuse what would move a row
    /// (`unavailable`) instead of applying a move the store would not keep. Read on the room
    /// thread, often: must not block.
    var isAcceptingWrites: Bool { get }
    /// Notes what a room's scene looks like at rest (so it comes back there), e.g. when it comes
    /// to rest and when it is evicted. Must not block the room thread.
    func checkpoint(_ checkpoint: RoomCheckpoint)
    /// Called about once a second on the room thread, for a store's own upkeep (expiring old
    /// rooms and old log, retrying after a failure). Must not block.
    func housekeeping()
}

extension RoomStore {
    /// Loads on the calling thread, and completes at once.
    public func loadRoom(named name: String, completion: @escaping (Result<StoredRoom?, RoomStoreError>) -> Void) {
        completion(Result { () throws(RoomStoreError) in try loadRoom(named: name) })
    }
    /// A store that never fails to write.
    public var isAcceptingWrites: Bool { true }
    /// A store that keeps no resting offsets.
    public func checkpoint(_ checkpoint: RoomCheckpoint) {}
    /// A store with no upkeep.
    public func housekeeping() {}
}

/// A room's scene state at rest, beyond its row order (which every move stores).
public struct RoomCheckpoint: Sendable, Hashable {
    /// The room.
    public var room: String
    /// The content offset (`frame.offset`) the room came to rest at.
    public var restingOffset: Double

    /// A checkpoint of room `room` at rest at `restingOffset`.
    public init(room: String, restingOffset: Double) {
        self.room = room
        self.restingOffset = restingOffset
    }
}

/// What a room is made with, fixed for its life.
public struct RoomSettings: Sendable, Hashable {
    /// The room's name.
    public var name: String
    /// The catalogue name of its scene.
    public var sceneName: String
    /// `DriverKey.digest` of the room's driver key when it is locked. The key itself is never
    /// stored, so a leaked store does not hand out the right to drive.
    public var driverKeyDigest: String?

    /// Settings of a room.
    public init(name: String, sceneName: String, driverKeyDigest: String?) {
        self.name = name
        self.sceneName = sceneName
        self.driverKeyDigest = driverKeyDigest
    }
}

/// What a store gives back to restore a room.
public struct StoredRoom: Sendable, Hashable {
    /// How the room was made.
    public var settings: RoomSettings
    /// Row ids of each section, in order, after the last durable move.
    public var rowOrder: [[Int]]
    /// How many moves the room has made (`rowMoved.version` of the last one).
    public var rowMoveVersion: Int
    /// The content offset of its last checkpoint at rest; nil: the top.
    public var restingOffset: Double?

    /// A stored room.
    public init(settings: RoomSettings, rowOrder: [[Int]], rowMoveVersion: Int, restingOffset: Double? = nil) {
        self.settings = settings
        self.rowOrder = rowOrder
        self.rowMoveVersion = rowMoveVersion
        self.restingOffset = restingOffset
    }
}

/// One row move, as the room applied it.
public struct RowMoveRecord: Sendable, Hashable {
    /// The room.
    public var room: String
    /// The moved row.
    public var rowID: Int
    /// Where it was and where it went.
    public var from: IndexPath
    /// Where it went.
    public var to: IndexPath
    /// The viewer that moved it.
    public var viewer: String
    /// The move's number in the room, from 1 (`rowMoved.version` on the wire).
    public var rowMoveVersion: Int
    /// Row ids of each section after the move: the whole order, so a store needs no engine to
    /// know it.
    public var rowOrder: [[Int]]

    /// A row move.
    public init(room: String, rowID: Int, from: IndexPath, to: IndexPath, viewer: String, rowMoveVersion: Int,
                rowOrder: [[Int]]) {
        self.room = room; self.rowID = rowID; self.from = from; self.to = to
        self.viewer = viewer; self.rowMoveVersion = rowMoveVersion; self.rowOrder = rowOrder
    }
}

/// One entry of a room's log: enough to replay the room's frames exactly.
public enum RoomLogEntry: Sendable, Hashable {
    /// An input as the scene applied it: at room time, after claims and time mapping. Frames
    /// after it name it as their `input`.
    case input(viewer: String, event: InputEvent)
    /// A cancel the room applied itself, ending `viewer`'s gesture for `cause`. Frames after it
    /// still name the last real input.
    case cancel(viewer: String, event: InputEvent, cause: CancelCause)
    /// A frame was taken at this room time with this sequence number.
    case frame(sequence: UInt64, time: Double)

    /// Why the room cancelled a driver's gesture itself.
    public enum CancelCause: String, Sendable, Hashable, CaseIterable {
        /// The driver left mid-gesture, so a lifted row goes back.
        case leave
        /// In place of a drop the room refused because the store could not keep the move
        /// (`unavailable`).
        case unavailable
        /// The room took back row moves its store failed to keep.
        case takeBack

        /// The cause the `applied` message of the cancel names.
        public var applied: AppliedCause {
            switch self {
            case .leave: .leave
            case .unavailable: .unavailable
            case .takeBack: .takeBack
            }
        }
    }
}

/// A store could not read or write.
public struct RoomStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, for logs (never sent to viewers as is).
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
