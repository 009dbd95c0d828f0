import Metrics
import MetricsTestKit
import ScrollcastRooms

/// A metrics backend that keeps everything in memory and can be read back: swift-metrics' own
/// `TestMetrics` (MetricsTestKit), with the room layer's `ServerMetrics` over it. Room, store and
/// cluster tests record through it instead of the server's Prometheus registry, so they link
/// neither Prometheus nor the server module; what `/metrics` prints is tested in
/// ScrollcastServerTests.
public final class InMemoryMetrics: Sendable {
    /// The backend: pass it wherever a `MetricsFactory` is asked for (e.g. a `ClusterNode`).
    public let factory: TestMetrics
    /// The room layer's metrics, recording into `factory`.
    public let server: ServerMetrics

    /// An empty backend and server metrics over it.
    public init() {
        factory = TestMetrics()
        server = ServerMetrics(factory: factory)
    }

    /// The total of counter `label` over all its dimensions; nil if no such counter was made.
    public func counter(_ label: String) -> Int64? {
        let counters = factory.counters(label: label)
        return counters.isEmpty ? nil : counters.reduce(0) { $0 + $1.totalValue }
    }

    /// The last value gauge `label` (no dimensions) was set to; nil if it never was.
    public func gauge(_ label: String) -> Double? {
        (try? factory.expectGauge(label))?.lastValue
    }
}
