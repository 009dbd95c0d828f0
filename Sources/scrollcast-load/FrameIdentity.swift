/// The cross-node identity check of a cluster run: every viewer of a room, on whichever node,
/// must receive the same bytes for the same frame `seq` (docs/protocol.md), because the owner
/// encodes each frame once per protocol version and every node relays those bytes. Each
/// received frame's raw message (v1 text or v2 binary) is hashed with FNV-1a 64 and compared
/// with what other connections of the room got for that seq.
///
/// Memory stays bounded: a room keeps the hashes of its last `slots` seqs only (a ring indexed
/// by seq), so a viewer more than that many frames behind the room's newest is not compared.
struct FrameIdentityRing {
    /// What one received frame told the check.
    struct Outcome: Equatable {
        /// The seq has now been seen on a second node: one more (room, seq) pair checked
        /// across nodes (whether or not the bytes agreed).
        var checkedAcrossNodes = false
        /// The bytes differ from the first ones seen for this seq, which came from node
        /// `mismatchWith` (told once per seq).
        var mismatchWith: Int? = nil
    }

    private struct Slot {
        var seq = UInt64.max
        var hash: UInt64 = 0
        /// Bit n: node n delivered this seq.
        var nodes: UInt64 = 0
        var firstNode: UInt8 = 0
        var mismatched = false
    }

    private var ring: [Slot]
    private let mask: Int

    /// A ring of `slots` seqs (a power of two).
    init(slots: Int) {
        precondition(slots > 0 && slots & (slots - 1) == 0, "slots must be a power of two")
        ring = Array(repeating: Slot(), count: slots)
        mask = slots - 1
    }

    /// Records that a connection on `node` (0..<64) received `hash` as frame `seq`. A seq
    /// seen for the first time, or too old for the ring (its slot holds a newer seq), tells
    /// nothing.
    mutating func record(seq: UInt64, hash: UInt64, node: Int) -> Outcome {
        let index = Int(truncatingIfNeeded: seq) & mask
        let slot = ring[index]
        let bit: UInt64 = 1 << UInt64(node)
        if slot.seq == UInt64.max || slot.seq < seq {
            ring[index] = Slot(seq: seq, hash: hash, nodes: bit, firstNode: UInt8(node))
            return Outcome()
        }
        guard slot.seq == seq else { return Outcome() }
        var outcome = Outcome()
        if slot.nodes & bit == 0 {
            ring[index].nodes |= bit
            outcome.checkedAcrossNodes = slot.nodes.nonzeroBitCount == 1
        }
        if slot.hash != hash, !slot.mismatched {
            ring[index].mismatched = true
            outcome.mismatchWith = Int(slot.firstNode)
        }
        return outcome
    }

    /// Slots per room for a run of `rooms` rooms: 256 (four seconds of frames at 60/s), fewer
    /// when that would take more than 64 MiB in all, never under 16.
    static func slots(rooms: Int) -> Int {
        let budget = (64 << 20) / MemoryLayout<Slot>.stride
        var slots = 256
        while slots > 16, slots * rooms > budget { slots /= 2 }
        return slots
    }
}

/// FNV-1a, 64 bits: a fast hash of a frame's bytes for the identity check (not for security;
/// a frame that differs is told apart with overwhelming odds).
enum FNV1a64 {
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
