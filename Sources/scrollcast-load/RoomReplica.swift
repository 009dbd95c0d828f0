import ScrollReplica
import ScrollWire

/// `--replica`: one room's native replica of the engine on one client thread (one per node the
/// room has viewers on, in a cluster run), and the check of every frame the room's connections
/// to that node receive against it (docs/benchmarks.md, "Replica check").
///
/// The first of those connections to receive its snapshot is the reference: its
/// messages (snapshot, `applied`, `rowMoved`, v2 `texts`, frames), decoded in full and in order,
/// drive a `ReplicaFollower`, which computes each frame the reference receives from the relayed
/// inputs and compares the bytes. Every connection's frame (the reference's included) is then
/// compared byte for byte with the replica's bytes for its seq; a frame of a seq the reference
/// did not receive, or received while its replica was not running (the room in motion at the
/// snapshot, or after a mismatch), is counted as not compared. A room's connections all run on
/// one thread, and every viewer of a room gets the same bytes for a seq, so one replica per
/// room computes what each connection must have received: the engine runs once per frame of a
/// room, not once per connection.
struct RoomReplica {
    private let version: WireVersion
    private let room: String
    /// The node whose connections this replica checks (0 with one `--url`).
    private let node: Int
    /// The reference connection's index, once it has its snapshot.
    private(set) var reference: Int?
    private var follower = ReplicaFollower()
    private var decoder = ServerMessageDecoderV2()
    /// What the replica said of each recent seq of the reference: its bytes, or nil (not compared).
    private var expected: [UInt64: [UInt8]?] = [:]
    private var newestReferenceSeq: UInt64?
    /// Frames of other connections ahead of the reference, waiting for it.
    private var parked: [(seq: UInt64, bytes: [UInt8], connection: Int)] = []
    /// Seqs kept in `expected` behind the reference's newest, and frames parked at most.
    static let keptSeqs: UInt64 = 512
    static let mostParked = 4096

    init(room: String, node: Int = 0, version: WireVersion) {
        self.room = room
        self.node = node
        self.version = version
    }

    /// Whether `connection`'s messages drive the replica: the reference, or any connection still
    /// joining while the room has none (its snapshot may make it the reference).
    func drives(_ connection: Int, joining: Bool) -> Bool {
        reference == connection || (reference == nil && joining)
    }

    /// A message of a connection that `drives` the replica, in the order it arrived.
    mutating func referenceMessage(_ bytes: UnsafeBufferPointer<UInt8>, connection: Int, into counts: inout ReplicaCounts) {
        let message: ServerMessage
        do {
            switch version {
            case .v1: message = try ServerMessageDecoder.decode(bytes)
            case .v2:
                if reference == nil { decoder = ServerMessageDecoderV2() }
                guard case .message(let decoded) = try decoder.decode(bytes) else { return }
                message = decoded
            }
        } catch {
            return  // the shard reports undecodable messages
        }
        switch message {
        case .snapshot(let snapshot):
            guard reference == nil else { return }
            reference = connection
            _ = follower.snapshot(snapshot)
        case .applied(let applied) where reference == connection: follower.applied(applied)
        case .rowMoved(let move) where reference == connection: follower.rowMoved(move)
        case .frame(let frame) where reference == connection:
            let server = Array(bytes)
            let verdict = follower.frame(frame, bytes: server, version: version, texts: version == .v2 ? decoder.texts : nil)
            referenceFrame(seq: frame.seq, verdict: verdict, server: server, into: &counts)
        default: break
        }
    }

    /// A frame received by `connection` (any connection of the room, after the reference's own
    /// message went to `referenceMessage`): compared with the replica's bytes for its seq now,
    /// or once the reference has received that seq.
    mutating func frame(seq: UInt64, bytes: UnsafeBufferPointer<UInt8>, connection: Int, into counts: inout ReplicaCounts) {
        if let entry = expected[seq] {
            compare(bytes, with: entry, seq: seq, connection: connection, into: &counts)
        } else if let newest = newestReferenceSeq, seq <= newest {
            counts.notCompared += 1  // the reference skipped this seq, or it is too old
        } else {
            if parked.count >= Self.mostParked {
                parked.removeFirst()
                counts.notCompared += 1
            }
            parked.append((seq, Array(bytes), connection))
        }
    }

    /// Whether `bytes` is an `applied` message, told from its front without decoding it.
    static func isApplied(_ bytes: UnsafeBufferPointer<UInt8>, version: WireVersion) -> Bool {
        switch version {
        case .v2: return bytes.first == ServerMessageTypeV2.applied.rawValue
        case .v1: return bytes.starts(with: appliedPrefixV1)
        }
    }

    private static let appliedPrefixV1 = Array(#"{"type":"applied""#.utf8)

    /// Frames still parked when the run ends were never compared.
    func unresolved() -> Int { parked.count }

    private mutating func referenceFrame(seq: UInt64, verdict: ReplicaFollower.Verdict, server: [UInt8],
                                         into counts: inout ReplicaCounts) {
        let entry: [UInt8]?
        switch verdict {
        case .waiting, .started: entry = nil
        case .identical: entry = server
        case .mismatch(let replica, _): entry = replica
        }
        expected[seq] = entry
        newestReferenceSeq = max(newestReferenceSeq ?? seq, seq)
        if seq > Self.keptSeqs, expected.count > Int(Self.keptSeqs) * 2 {
            expected = expected.filter { $0.key + Self.keptSeqs > seq }
        }
        guard !parked.isEmpty else { return }
        var waiting: [(seq: UInt64, bytes: [UInt8], connection: Int)] = []
        for frame in parked {
            if frame.seq > seq {
                waiting.append(frame)
            } else if let entry = expected[frame.seq] {
                frame.bytes.withUnsafeBufferPointer { compare($0, with: entry, seq: frame.seq, connection: frame.connection, into: &counts) }
            } else {
                counts.notCompared += 1
            }
        }
        parked = waiting
    }

    private func compare(_ bytes: UnsafeBufferPointer<UInt8>, with entry: [UInt8]?, seq: UInt64, connection: Int,
                         into counts: inout ReplicaCounts) {
        guard let replica = entry else {
            counts.notCompared += 1
            return
        }
        if replica.elementsEqual(bytes) {
            counts.identical += 1
        } else {
            let who = connection == reference ? "reference connection" : "connection"
            counts.mismatch("room \(room) seq \(seq) node \(node) \(who) \(connection) (replica had matched \(follower.identical) frames, waited \(follower.waited)): replica \(Self.hex(replica)) server \(Self.hex(Array(bytes)))")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }
}

/// What `--replica` counted: frames compared with the replica (identical or not) and frames not
/// compared (see `RoomReplica`), with the first mismatches described.
struct ReplicaCounts: Equatable {
    var identical: UInt64 = 0
    var mismatches: UInt64 = 0
    var notCompared: UInt64 = 0
    var mismatchExamples: [String] = []

    var compared: UInt64 { identical + mismatches }

    mutating func mismatch(_ description: String) {
        mismatches += 1
        mismatchExamples.keepExample(description)
    }

    mutating func merge(_ other: ReplicaCounts) {
        identical += other.identical
        mismatches += other.mismatches
        notCompared += other.notCompared
        mismatchExamples.keepExamples(of: other.mismatchExamples)
    }
}
