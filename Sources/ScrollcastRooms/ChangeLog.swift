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

    /// Viewers of the inputs stream, per protocol version.
    var counts: [WireVersion: Int] = [:]
    /// Every change, numbered, the latest kept.
    var log = ChangeLog()
    /// Changes made since the last batch went out.
    var pending: [AppliedMessage] = []
    /// Room time the last batch went out.
    var lastBatchAt = -Double.infinity
    /// Room time the last beat of this stream went out.
    var lastBeatAt = -Double.infinity
    /// The room moved (or changed) since the last beat: one goes out once it rests.
    var restBeatOwed = false

    /// Viewers of the inputs stream.
    var viewers: Int { counts.values.reduce(0, +) }
}
