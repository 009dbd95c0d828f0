import Foundation
import Testing
import Logging
import Prometheus
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms
import ScrollcastServer

/// The room layer with a manual clock and scheduler, a small scene catalogue, an in-memory store
/// and its own metrics registry.
@RoomActor final class Harness {
    let clock = ManualRoomClock()
    let scheduler: ManualScheduler
    let prometheus = PrometheusCollectorRegistry()
    let store: RoomStore
    /// Every frame's `sentAt`: the wall clock stands still in these tests.
    nonisolated static let sentAt = 1_763_800_000_000.0
    let service: RoomService
    var limits: ServerLimits
    private var nextConnection: UInt64 = 1

    /// The scenes of these tests: `demo` is `scene` (the small one by default), `seed-table` the
    /// real one.
    static func catalogue(demo scene: @escaping @Sendable () -> SceneConfiguration) -> SceneCatalogue {
        SceneCatalogue(entries: [.init(name: "demo", build: scene),
                                 .init(name: "seed-table", build: { SeedTableScene.configuration() })],
                       defaultName: "demo")
    }

    init(limits: ServerLimits = ServerLimits(), scene: @escaping @Sendable () -> SceneConfiguration = Harness.smallScene,
         scenes: SceneCatalogue? = nil, store: RoomStore = InMemoryRoomStore(logLimit: 100_000),
         ownership: RoomOwnership = SingleNodeOwnership()) {
        self.limits = limits
        self.store = store
        scheduler = ManualScheduler(clock: clock)
        let metrics = ServerMetrics(factory: ServerMetrics.prometheusFactory(registry: prometheus))
        let services = RoomServices(clock: clock, wallClock: { Harness.sentAt }, metrics: metrics,
                                    scenes: scenes ?? Self.catalogue(demo: scene), store: store, ownership: ownership)
        service = RoomService(limits: limits, services: services, scheduler: scheduler, prometheus: prometheus,
                              logger: Self.quietLogger, allowedOrigins: ["*"], host: "127.0.0.1")
    }

    var hub: ViewerHub { service.hub }
    var registry: RoomRegistry { service.registry }

    static var quietLogger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    /// 40 rows of 64 pt in 2 sections, default viewport.
    nonisolated static func smallScene() -> SceneConfiguration {
        SceneConfiguration(sections: (0..<2).map { s in
            TableSection(title: "Section \(s)", rows: (0..<20).map { r in
                TableRow(id: s * 20 + r, title: "Row \(s * 20 + r)", group: "S\(s)", detail: "\(r)", height: 64)
            })
        })
    }

    /// Opens a connection speaking `version` and joins `room`.
    @discardableResult
    func viewer(joining room: String? = "demo", extra: String = "", version: WireVersion = .v1) -> (ViewerID, RecordingViewerSink) {
        let id = ViewerID(rawValue: nextConnection)
        nextConnection += 1
        let sink = RecordingViewerSink()
        service.opened(id, sink: sink, subprotocol: version.subprotocol)
        if let room { send(#"{"type":"join","room":"\#(room)"\#(extra)}"#, from: id) }
        return (id, sink)
    }

    func send(_ text: String, from id: ViewerID) { service.receivedText(text.utf8, from: id) }

    /// Sends one input; `fields` is the JSON after the kind, e.g. `"x":10,"y":20`.
    func input(_ id: UInt64, t: Double, _ kind: String, _ fields: String = "", from connection: ViewerID) {
        let extra = fields.isEmpty ? "" : "," + fields
        send(#"{"type":"input","id":\#(id),"t":\#(t),"kind":"\#(kind)"\#(extra)}"#, from: connection)
    }

    /// Advances the clock by one tick window and ticks every room.
    func tick(_ count: Int = 1) {
        for _ in 0..<count {
            clock.advance(by: limits.tickMilliseconds)
            registry.tick()
        }
    }

    /// An upward flick from y = 600: pointer down, `steps` moves of `stride` pt every `interval`
    /// ms (the scheduler's clock advancing between them, so the room's timers run), pointer up.
    /// Input ids are 1…steps + 2; returns the last one's time.
    @discardableResult
    func fling(by driver: ViewerID, steps: Int, interval: Double, stride: Int) -> Double {
        input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver)
        for step in 1...steps {
            scheduler.advance(by: interval)
            input(UInt64(1 + step), t: Double(step) * interval, "pointerMove", #""x":100,"y":\#(600 - step * stride)"#, from: driver)
        }
        let end = Double(steps + 1) * interval
        scheduler.advance(by: interval)
        input(UInt64(steps + 2), t: end, "pointerUp", #""x":100,"y":\#(600 - steps * stride - stride / 2)"#, from: driver)
        return end
    }

    /// Holds a row below y = 300 in `watcher`'s snapshot until it lifts, drags it 200 pt down
    /// and drops it (info-panel-and-row-moving.txt: tap-and-hold, then drag to a new place).
    /// Returns the row's id and whether `watcher` saw it lifted.
    func dragRowDown(by driver: ViewerID, watchedBy watcher: RecordingViewerSink) throws -> (rowID: Int, lifted: Bool) {
        let snapshot = try #require(watcher.messages.first)
        let rows = try #require((snapshot["frame"] as? [String: Any])?["rows"] as? [[String: Any]])
        let row = try #require(rows.first { ($0["y"] as? Double ?? 0) > 300 })
        let rowID = try #require(row["id"] as? Int)
        let y = (row["y"] as? Double ?? 0) + 32

        input(1, t: 0, "pointerDown", #""x":150,"y":\#(y)"#, from: driver)
        let hold = 36  // ≈ 600 ms of ticks at 60 fps
        tick(hold)
        var t = limits.tickMilliseconds * Double(hold)
        var id: UInt64 = 2
        for step in 1...10 {
            input(id, t: t, "pointerMove", #""x":150,"y":\#(y + 20 * Double(step))"#, from: driver)
            id += 1
            t += 16
            tick()
        }
        let lifted = watcher.messages(ofType: "frame").contains { $0["lifted"] is [String: Any] }
        input(id, t: t, "pointerUp", #""x":150,"y":\#(y + 200)"#, from: driver)
        return (rowID, lifted)
    }

    /// The value of a metric line on /metrics (first sample with that name), or nil.
    func metric(_ name: String) -> Double? {
        for line in prometheus.emitToString().split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }
}
