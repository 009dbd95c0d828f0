import ScrollEngine
import ScrollWire

/// A client's replica of a room, fed only with what the server sends a viewer whose join asked
/// for `inputs` (docs/protocol.md, "Inputs applied"), checking every server frame against its own.
///
/// It starts from the snapshot when the snapshot's frame is at rest, and otherwise from the first
/// frame at rest after it (room in motion: until then there is nothing to compare). From there
/// it applies each `applied` message and, for every frame the server sends, computes the frame at
/// the same room time and compares the bytes (`sentAt` aside: the server's is used). On a
/// mismatch it drops its replica and starts again at the next frame at rest. `scrollcast-load
/// --replica` and the server's tests use it; the page does the same in JavaScript
/// (Public/js/replica/).
public struct ReplicaFollower: Sendable {
    /// The replica, once started.
    public private(set) var replica: EngineReplica?
    /// Frames compared, and how many were identical.
    public private(set) var compared = 0
    public private(set) var identical = 0
    /// Frames seen before the replica started (or restarted after a mismatch).
    public private(set) var waited = 0

    private var sceneName = ""
    private var order: [[Int]] = []
    private var reducedMotion = false
    /// The exact offset of the latest frame at rest the server told of (`applied` `rest`).
    private var rest: (seq: UInt64, offset: Double)?
    /// `applied` messages received and not yet applied to the replica, in order.
    private var pending: [AppliedMessage] = []

    /// What a frame showed.
    public enum Verdict: Sendable, Equatable {
        /// The replica is not running yet (the room was in motion); this frame was not compared,
        /// unless it started the replica (`started`).
        case waiting
        /// The replica started at this frame (at rest).
        case started
        /// The replica's bytes are the server's.
        case identical
        /// They differ: the replica's bytes, then the server's. The replica was dropped.
        case mismatch(replica: [UInt8], server: [UInt8])
    }

    /// A follower that has received nothing yet.
    public init() {}

    /// A `snapshot` (a new connection): the scene, its row order, and the start when at rest.
    public mutating func snapshot(_ snapshot: SnapshotMessage) -> Verdict {
        sceneName = snapshot.sceneName
        order = snapshot.scene.sections.map { $0.rowIDs }
        reducedMotion = false
        pending = []
        replica = nil
        return start(at: snapshot.frame) ? .started : .waiting
    }

    /// A `rowMoved`: kept for a (re)start; a running replica moved the row when it applied the drop.
    public mutating func rowMoved(_ move: RowMovedMessage) {
        guard order.indices.contains(move.from.section), order[move.from.section].indices.contains(move.from.row),
              order.indices.contains(move.to.section) else { return }
        let id = order[move.from.section].remove(at: move.from.row)
        order[move.to.section].insert(id, at: min(move.to.row, order[move.to.section].count))
    }

    /// An `applied` message.
    public mutating func applied(_ message: AppliedMessage) {
        if case .input(.reducedMotion(let on)) = message.change { reducedMotion = on }
        if case .rest(let offset) = message.change { rest = (message.after, offset) }
        guard message.cause != .state else { return }
        pending.append(message)
    }

    /// A server `frame` and its bytes as received (`version`'s encoding); for version 2, `texts`
    /// is the client's table (its decoder's) when the frame arrived.
    public mutating func frame(_ frame: FrameMessage, bytes: [UInt8], version: WireVersion,
                               texts: WireTextTable? = nil) -> Verdict {
        guard var current = replica else {
            waited += 1
            pending.removeAll { $0.after < frame.seq }  // shown by this frame already
            return start(at: frame) ? .started : .waiting
        }
        // What the room applied before this frame; later ones (they can overtake a frame that
        // waited in a connection's latest slot) stay pending.
        var later: [AppliedMessage] = []
        for message in pending {
            if message.after < frame.seq { _ = current.apply(message) } else { later.append(message) }
        }
        pending = later
        let expected: [UInt8]
        switch version {
        case .v2:
            if let texts { current.useServerTexts(texts) }
            expected = current.frame(at: frame.time, sequence: frame.seq, sentAt: frame.sentAt).bytes
        case .v1:
            let computed = current.frame(at: frame.time, sequence: frame.seq, sentAt: frame.sentAt).frame
            expected = ServerMessageEncoder.frame(computed, input: current.lastApplied, sentAt: frame.sentAt)
        }
        compared += 1
        guard expected == bytes else {
            replica = nil
            pending = []
            return .mismatch(replica: expected, server: bytes)
        }
        identical += 1
        replica = current
        return .identical
    }

    /// Starts the replica at `frame` when it shows the room at rest: nothing animating, no finger
    /// on the content, no row lifted.
    private mutating func start(at frame: FrameMessage) -> Bool {
        guard !frame.animating, frame.phase == ScrollPhase.idle.rawValue, frame.lifted == nil, frame.placeholder == nil,
              var fresh = EngineReplica(sceneNamed: sceneName),
              // The exact offset (frames round it to 0.01 pt, and motion from a rounded start can
              // round differently later).
              fresh.restore(order: order, viewport: frame.viewport,
                            restingAt: rest.flatMap { $0.seq == frame.seq ? $0.offset : nil } ?? frame.offset,
                            reducedMotion: reducedMotion)
        else { return false }
        fresh.nameInput(frame.input)
        replica = fresh
        return true
    }
}
