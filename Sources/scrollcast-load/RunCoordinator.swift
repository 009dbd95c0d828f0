import Dispatch
import Synchronization

/// What the client threads of one run share: the start of the common measurement window, the
/// count of joined connections, and the news that every thread is done. Each thread keeps its
/// own statistics; only these few events cross threads.
final class RunCoordinator: Sendable {
    /// Where the run stands, for the progress line.
    enum Phase: String, Sendable {
        case ramping, measuring, closing
    }

    private struct State {
        var shards: [LoadShard] = []
        var settled = 0
        var stopping = 0
        var finished = 0
        var measuring = false
    }

    let shardCount: Int
    private let state = Mutex(State())
    private let allFinished = DispatchSemaphore(value: 0)
    private let connected = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    init(shardCount: Int) {
        self.shardCount = shardCount
    }

    /// Hands over the shards to start once all of them have settled. Call once, before any starts.
    func attach(_ shards: [LoadShard]) {
        state.withLock { $0.shards = shards }
    }

    /// A shard finished its ramp and its connections settled (or gave up waiting, or ended).
    /// When the last one reports, every shard starts measuring at the same moment: a window
    /// opened while another thread still handshakes would measure the ramp.
    func shardSettled() {
        let start: [LoadShard] = state.withLock { state in
            state.settled += 1
            guard state.settled == shardCount else { return [] }
            state.measuring = true
            return state.shards
        }
        guard !start.isEmpty else { return }
        let startMs = Clock.monotonicMs()
        for shard in start { shard.startMeasuring(windowStartMs: startMs) }
    }

    /// A shard closes its connections (its window ended, or it has no connection left).
    func shardStopping() {
        state.withLock { $0.stopping += 1 }
    }

    /// A shard is done; the last one wakes `waitUntilFinished`.
    func shardFinished() {
        let last = state.withLock { state in
            state.finished += 1
            return state.finished == shardCount
        }
        if last { allFinished.signal() }
    }

    /// Waits up to `seconds` for every shard to finish; false on timeout.
    func waitUntilFinished(seconds: Double) -> Bool {
        allFinished.wait(timeout: .now() + .milliseconds(Int(seconds * 1000))) == .success
    }

    var phase: Phase {
        state.withLock { state in
            state.stopping == shardCount ? .closing : state.measuring ? .measuring : .ramping
        }
    }

    /// A connection got its snapshot.
    func connectionJoined() {
        let now = connected.add(1, ordering: .relaxed).newValue
        peak.max(now, ordering: .relaxed)
    }

    /// A joined connection closed.
    func connectionLeft() {
        connected.subtract(1, ordering: .relaxed)
    }

    /// Connections joined right now, on every thread.
    var connectedNow: Int { connected.load(ordering: .relaxed) }

    /// Most connections joined at one time, on every thread together.
    var peakConnected: Int { peak.load(ordering: .relaxed) }
}
