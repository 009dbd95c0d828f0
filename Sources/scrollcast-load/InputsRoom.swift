import ScrollWire

/// `--stream inputs`: which driver input each change of one room applied, and when it left, so
/// that every watcher's input-to-replica latency is a table lookup by change number. The first
/// connection of the room to receive a batch decodes it (once per room, whichever connection
/// that is) and settles the driver's pending inputs it names; the others read only its header
/// (`InputsStreamHeader`). A room's connections all run on one shard thread.
struct InputsRoom {
    /// A driver's input a change applied: when it left (monotonic ms), whether it left inside
    /// the measurement window, its room time, and the driver connection's index.
    struct Sent {
        var sentMs: Double
        var counted: Bool
        var time: Double
        var driver: Int
    }

    private var sent: [UInt64: Sent] = [:]
    /// The last change a connection of the room decoded.
    private(set) var decodedThrough: UInt64 = 0
    /// Changes kept behind the newest decoded: a watcher further behind loses its samples.
    static let keptChanges: UInt64 = 4096

    /// Whether a batch ending at change `changes` holds a change no connection decoded yet.
    func needsDecoding(through changes: UInt64) -> Bool { changes > decodedThrough }

    /// Learns the inputs of the changes of `batch` not decoded yet: an entry of cause `input`
    /// from one of the room's drivers (`driver(named:)`) settles that driver's pending inputs up
    /// to its id, and the one with its id is the change's input.
    mutating func learn(_ batch: BatchMessage, driver: (String) -> LoadConnection?) {
        for (offset, entry) in batch.applied.enumerated() {
            let change = batch.firstChange + UInt64(offset)
            guard change > decodedThrough, entry.cause == .input, let name = entry.viewer,
                  let connection = driver(name),
                  let input = connection.pending.settle(upTo: entry.id).last, input.id == entry.id
            else { continue }
            sent[change] = Sent(sentMs: input.sentMs, counted: input.counted, time: entry.time, driver: connection.index)
        }
        decodedThrough = max(decodedThrough, batch.changes)
        if sent.count > Int(Self.keptChanges) * 2, decodedThrough > Self.keptChanges {
            let oldest = decodedThrough - Self.keptChanges
            sent = sent.filter { $0.key > oldest }
        }
    }

    /// The driver input change `change` applied, if it was one (and is still kept).
    func input(ofChange change: UInt64) -> Sent? { sent[change] }
}
