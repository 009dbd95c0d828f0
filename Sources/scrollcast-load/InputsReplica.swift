import ScrollReplica
import ScrollWire

/// `--stream inputs --replica`: one room's native replica of the engine, driven by one connection
/// of the room (its reference: the first viewer to receive a snapshot with `replica`), as a page
/// in the inputs stream runs it (docs/protocol.md, "The inputs stream"): restored from the
/// snapshot's state bytes, fed every batch in order, and checked at every hashed beat
/// (`EngineReplica.frameHash(at:)` against the beat's hash). On a mismatch it drops its state and
/// asks for a keyframe; the keyframe's snapshot starts it again. The room's other connections do
/// not decode what it decodes: one replica per room, not per connection.
struct InputsReplica {
    private let room: String
    /// The reference connection's index, once it has its snapshot.
    private(set) var reference: Int?
    private var replica: EngineReplica?
    /// The last change the replica holds.
    private var changes: UInt64 = 0
    /// Moved to frames by the server: nothing more to check.
    private var fellBack = false
    /// Test only (`--test-fault replica-drops-change`): leave out the first change of every batch.
    private let dropsChanges: Bool

    init(room: String, dropsChanges: Bool = false) {
        self.room = room
        self.dropsChanges = dropsChanges
    }

    /// Whether `connection` (a viewer) drives the replica: the reference, or any viewer while
    /// the room has none.
    func drives(_ connection: Int) -> Bool { reference == nil || reference == connection }

    /// A snapshot of a connection that `drives` the replica: a (re)start from its state, or the
    /// server's move of the connection to frames (a snapshot without `replica`).
    mutating func snapshot(_ snapshot: SnapshotMessage, connection: Int, into counts: inout InputsCounts) {
        guard let start = snapshot.replica else {
            if reference == connection && !fellBack {
                fellBack = true
                counts.fallbacks += 1
            }
            replica = nil
            return
        }
        reference = connection
        guard var fresh = EngineReplica(sceneNamed: snapshot.sceneName) else {
            counts.mismatch("room \(room): scene '\(snapshot.sceneName)' is not one a replica builds")
            return
        }
        do {
            try fresh.restore(state: start.state)
        } catch {
            counts.mismatch("room \(room): the snapshot's state (\(start.state.count) bytes) was refused: \(error)")
            return
        }
        fresh.nameInput(start.input)
        replica = fresh
        changes = start.changes
        counts.replicaStarts += 1
    }

    /// A batch of the reference: its changes applied in order. False when the replica cannot
    /// follow (a change missing before it, or one its engine refused): it must ask a keyframe.
    mutating func batch(_ batch: BatchMessage, into counts: inout InputsCounts) -> Bool {
        guard var current = replica else { return true }
        guard batch.changes > changes else { return true }  // nothing it does not hold
        guard batch.firstChange <= changes + 1 else {
            return drop("room \(room): batch from change \(batch.firstChange) while the replica holds \(changes)", into: &counts)
        }
        for (offset, entry) in batch.applied.enumerated() where batch.firstChange + UInt64(offset) > changes {
            if dropsChanges && offset == 0 { continue }
            if case .rejected(let why) = current.apply(entry) {
                return drop("room \(room): change \(batch.firstChange + UInt64(offset)) refused by the replica: \(why)", into: &counts)
            }
        }
        changes = batch.changes
        replica = current
        return true
    }

    /// A hashed beat of the reference: the replica's frame at its time hashed and compared.
    /// False on a mismatch: the replica is dropped and a keyframe must be asked.
    mutating func beat(time: Double, hash: UInt64, into counts: inout InputsCounts) -> Bool {
        guard let current = replica else { return true }
        let mine = current.frameHash(at: time)
        if mine == hash {
            counts.beatsMatched += 1
            return true
        }
        replica = nil
        counts.mismatch("room \(room) beat at t \(time) after change \(changes): replica \(HashText.hex(mine)) ≠ room \(HashText.hex(hash))")
        return false
    }

    private mutating func drop(_ why: String, into counts: inout InputsCounts) -> Bool {
        replica = nil
        counts.mismatch(why)
        return false
    }
}
