import Dispatch
import Foundation
import LinkEmulator

/// `--link PROFILE`: the link emulator (docs/links.md) on a thread of its own, between the load
/// connections and the server, so thousands of connections see a real network's delays. The
/// connections go to `address`; the emulator forwards them to the server.
final class InProcessLink {
    private let emulator: LinkEmulator
    private let finished = DispatchSemaphore(value: 0)
    /// Where the connections go instead of the server (same WebSocket path).
    let address: ServerAddress

    init(profile: LinkProfile, seed: UInt64, server: ServerAddress) throws {
        emulator = try LinkEmulator(
            profile: profile, seed: seed, listen: LinkAddress(host: "127.0.0.1", port: 0),
            upstream: LinkAddress(host: server.host, port: server.port), control: nil)
        var address = server
        address.host = "127.0.0.1"
        address.port = emulator.listenAddress.port
        self.address = address
        let thread = Thread { [emulator, finished] in
            emulator.run(raisePriority: true)
            finished.signal()
        }
        thread.name = "link-emulator"
        thread.start()
    }

    /// Stops the emulator (open connections are dropped) and returns what it counted.
    func stop() -> LinkStats {
        emulator.requestStop()
        finished.wait()
        return emulator.stats
    }
}

/// What the report says about the emulated link: its model and how well the emulator kept to it.
struct LinkReport: Codable, Equatable {
    struct TimingError: Codable, Equatable {
        var count: UInt64
        var p50: UInt64
        var p99: UInt64
        var max: UInt64
    }

    /// The profile's name and its model, e.g. "4g (40 ms + 0–20 ms, 0.5 % stalls of 200 ms, 10 Mbit/s)".
    var profile: String
    var model: String
    var seed: UInt64
    /// Actual minus scheduled release of every chunk, microseconds.
    var timingErrorUs: TimingError
    /// CPU time of the emulator's thread, and that as a share of one core over the run (%).
    var cpuSeconds: Double
    var cpuPercent: Double
    /// Chunks forwarded and chunks that stalled, up (to the server) and down.
    var chunksUp: UInt64
    var chunksDown: UInt64
    var stalls: UInt64
    /// Turns of the emulator's event loop: p99 and longest, microseconds.
    var loopTurnP99Us: UInt64
    var loopTurnMaxUs: UInt64
    /// Whether the emulator's thread got its raised priority (nice −10; needs CAP_SYS_NICE).
    var raisedPriority: Bool

    init(_ stats: LinkStats) {
        profile = stats.profile.name
        model = stats.profile.summary
        seed = stats.seed
        timingErrorUs = TimingError(
            count: stats.timingError.count, p50: stats.timingError.percentile(0.5),
            p99: stats.timingError.percentile(0.99), max: stats.timingError.maxMicroseconds)
        cpuSeconds = (stats.cpuSeconds * 1000).rounded() / 1000
        cpuPercent = (stats.cpuShare * 1000).rounded() / 10
        chunksUp = stats.chunks[0]
        chunksDown = stats.chunks[1]
        stalls = stats.stalls[0] + stats.stalls[1]
        raisedPriority = stats.raisedPriority
        loopTurnP99Us = stats.loopTurns.percentile(0.99)
        loopTurnMaxUs = stats.loopTurns.maxMicroseconds
    }
}
