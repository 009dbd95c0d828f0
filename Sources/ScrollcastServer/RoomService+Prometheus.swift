import Logging
import Prometheus
import ScrollcastRooms

// The room layer serves `GET /metrics` from whatever exposition it is given; the server's is
// Prometheus's.
extension RoomService {
    /// A service whose `GET /metrics` answers with `prometheus`'s metrics; otherwise as
    /// `init(limits:services:scheduler:metricsExposition:logger:allowedOrigins:host:cluster:)`.
    public convenience init(limits: ServerLimits, services: RoomServices, scheduler: RoomScheduler,
                            prometheus: PrometheusCollectorRegistry, logger: Logger,
                            allowedOrigins: [String]?, host: String, cluster: RoomClusterNode? = nil) {
        self.init(limits: limits, services: services, scheduler: scheduler,
                  metricsExposition: { prometheus.emitToBuffer() }, logger: logger,
                  allowedOrigins: allowedOrigins, host: host, cluster: cluster)
    }
}
