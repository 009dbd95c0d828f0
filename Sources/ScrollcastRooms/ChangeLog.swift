import ScrollWire

/// The changes a room made in its life (docs/protocol.md, "The inputs stream"): numbered from 1
/// with no gap, the last `kept` of them held so that a viewer of the inputs stream can resume
/// with the changes it missed instead of a snapshot. Every change is counted, whoever watches:
/// a resume names a number from an earlier connection.
struct ChangeLog {
    /// How many of the latest changes a resume can be sent (docs/protocol.md: 1,024).
    static let kept = 1024

    /// Changes made in this life so far: the number of the latest.
    private(set) var count: UInt64 = 0
    /// The latest changes, oldest first; up to twice `kept`, trimmed in one go so that trimming
    /// costs nothing per change.
    private var recent: [AppliedMessage] = []

    /// Numbers `change` (the next number) and keeps it.
    mutating func append(_ change: AppliedMessage) {
        count += 1
        recent.append(change)
        if recent.count >= 2 * Self.kept { recent.removeFirst(recent.count - Self.kept) }
    }

    /// The changes after number `n`, oldest first (empty when `n` is the latest); nil when `n`
    /// is beyond the latest or the changes after it are older than the log keeps.
    func since(_ n: UInt64) -> [AppliedMessage]? {
        guard n <= count else { return nil }
        let missed = count - n
        guard missed <= UInt64(min(recent.count, Self.kept)) else { return nil }
        return Array(recent.suffix(Int(missed)))
    }
}

/// What a room keeps for its viewers of the inputs stream (`Room+InputsStream.swift`).
struct InputsStreamState {
    /// A motion beat goes out with the first frame at least this long after the previous (ms).
    static let beatInterval = 250.0
    /// Keyframe requests are counted over this long (ms)...
    static let keyframeWindow = 60_000.0
    /// ...and this many within it move the viewer to frames (the last is not answered).
    static let keyframesBeforeFallback = 3

    /// Every change, numbered, the latest kept.
    var log = ChangeLog()
    /// The batches of each period the viewers asked for (`batchMs`; 0: one frame period).
    var groups: [Int: BatchGroup] = [:]
    /// Room time the last beat of this stream went out.
    var lastBeatAt = -Double.infinity
    /// The room moved (or changed) since the last beat: one goes out once it rests.
    var restBeatOwed = false
    /// Room time the driver changed since this stream's viewers were last told who drives: they
    /// get `presence` with the next beat, this long after at the latest (`beatInterval`).
    var presenceOwedSince: Double?

    /// Viewers of the inputs stream, per protocol version: those of every period.
    var counts: [WireVersion: Int] {
        groups.values.reduce(into: [:]) { all, group in all.merge(group.counts, uniquingKeysWith: +) }
    }

    /// Viewers of the inputs stream.
    var viewers: Int { groups.values.reduce(0) { $0 + $1.viewers } }

    /// A viewer speaking `version` asking for batches every `batchMs` joined the stream.
    mutating func add(_ version: WireVersion, batchMs: Int) {
        groups[batchMs, default: BatchGroup()].counts[version, default: 0] += 1
    }

    /// Such a viewer left it; a period nobody asks for any more goes with its waiting changes.
    mutating func remove(_ version: WireVersion, batchMs: Int) {
        groups[batchMs]?.counts[version, default: 1] -= 1
        if groups[batchMs]?.viewers == 0 { groups[batchMs] = nil }
    }

    /// The periods asked for, shortest first (so the output's order never depends on hashing).
    var periods: [Int] { groups.keys.sorted() }
}

/// The batches of one period, shared by every viewer of the inputs stream that asked for it:
/// the changes waiting for its next batch, and when its last one left.
struct BatchGroup {
    /// Its viewers, per protocol version.
    var counts: [WireVersion: Int] = [:]
    /// Changes made since its last batch went out.
    var pending: [AppliedMessage] = []
    /// Room time its last batch went out.
    var lastBatchAt = -Double.infinity

    /// Its viewers.
    var viewers: Int { counts.values.reduce(0, +) }
}
