import Dispatch

/// One load test on `plan.threads` client threads: deals the rooms out to the shards, starts
/// them on a common clock, prints the progress line once a second while they run, and merges
/// their statistics when all of them are done.
final class LoadRun {
    /// What a finished run measured, merged over every thread.
    struct Outcome {
        var statistics: LoadStatistics
        /// The longest measurement window of any thread (all start together and end at the same
        /// planned moment; a thread whose connections all left ends early and measured less).
        var measuredSeconds: Double
    }

    private let plan: LoadPlan
    private let coordinator: RunCoordinator
    private let shards: [LoadShard]
    private var progressLine = ProgressLine()

    init(plan: LoadPlan) {
        self.plan = plan
        let coordinator = RunCoordinator(shardCount: plan.threads)
        self.coordinator = coordinator
        shards = (0..<plan.threads).map { LoadShard(plan: plan, rooms: plan.rooms(ofThread: $0), coordinator: coordinator) }
        coordinator.attach(shards)
    }

    /// Runs the plan to the end. Blocks the calling thread.
    func run() throws -> Outcome {
        let runStartMs = Clock.monotonicMs()
        for (index, shard) in shards.enumerated() {
            do { try shard.start(runStartMs: runStartMs) } catch {
                shutdown(shards[..<index])
                throw error
            }
        }
        var lastProgressMs = runStartMs
        while !coordinator.waitUntilFinished(seconds: max(0, lastProgressMs + 1000 - Clock.monotonicMs()) / 1000) {
            let now = Clock.monotonicMs()
            showProgress(runStartMs: runStartMs, sinceMs: lastProgressMs, nowMs: now)
            lastProgressMs = now
        }
        progressLine.finish()
        shutdown(shards[...])

        var statistics = LoadStatistics()
        for shard in shards { statistics.merge(shard.statistics) }
        statistics.peakConnected = coordinator.peakConnected
        return Outcome(statistics: statistics, measuredSeconds: shards.map(\.measuredSeconds).max() ?? 0)
    }

    /// Stops the shards' threads side by side (each may wait up to a second for closes).
    private func shutdown(_ shards: ArraySlice<LoadShard>) {
        let shards = Array(shards)
        DispatchQueue.concurrentPerform(iterations: shards.count) { shards[$0].shutdown() }
    }

    private func showProgress(runStartMs: Double, sinceMs: Double, nowMs: Double) {
        var frames: UInt64 = 0
        var latency = LatencyHistogram()
        var errors = 0
        for shard in shards {
            let interval = shard.progress.take()
            frames += interval.frames
            latency.merge(interval.latency)
            errors += interval.errorsSoFar
        }
        let seconds = max((nowMs - sinceMs) / 1000, 0.001)
        let rate = Double(frames) / seconds
        let p99 = latency.count > 0 ? String(format1: latency.milliseconds(atPercentile: 99)) + " ms" : "–"
        progressLine.show(
            "[\(String(format1: (nowMs - runStartMs) / 1000))s \(coordinator.phase.rawValue)] connected \(coordinator.connectedNow)/\(plan.totalConnections)"
                + "  frames/s \(Int(rate.rounded()))  p99 \(p99)  errors \(errors)")
    }
}
