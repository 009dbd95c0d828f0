import Metrics
import Prometheus
import ScrollcastRooms

// Prometheus is the server's exporter; the room layer records through swift-metrics only.
extension ServerMetrics {
    /// A Prometheus factory over `registry` whose encode-time histogram has buckets fine enough
    /// for microsecond-scale work.
    public static func prometheusFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Name.frameEncodeTime] = [
            .microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100),
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100),
        ]
        return factory
    }
}
