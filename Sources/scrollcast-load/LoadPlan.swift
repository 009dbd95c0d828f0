import ScrollWire

/// What one run does, from the command line.
struct LoadPlan: Sendable {
    var address: ServerAddress
    /// The protocol version every connection speaks (`--protocol`).
    var wireVersion: WireVersion = .v2
    var rooms: Int
    var viewersPerRoom: Int
    var driversPerRoom: Int
    var script: GestureScript
    /// With `--replay`: the recording every driver plays instead of `script`.
    var recording: RecordedScript? = nil
    var seed: UInt64
    var durationSeconds: Double
    var rampSeconds: Double
    var roomPrefix: String
    /// A connection "keeps up" while its frames arrive within this many ms of their `sentAt`.
    var keptUpMs: Double
    /// Client threads (one WebSocket client each); rooms are dealt out to them round robin.
    var threads: Int

    var connectionsPerRoom: Int { viewersPerRoom + driversPerRoom }
    var totalConnections: Int { rooms * connectionsPerRoom }

    /// The rooms thread `thread` runs: every `threads`-th room, so room sizes stay balanced and
    /// a room's driver and viewers share one thread (and one clock for the latency).
    func rooms(ofThread thread: Int) -> [Int] {
        Array(stride(from: thread, to: rooms, by: threads))
    }
}
