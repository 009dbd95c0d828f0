import Foundation
import Logging
import Prometheus
import ScrollEngine
import WebSockets
@testable import ScrollcastServer

/// An in-memory viewer: records what a room sends. With `isSlow`, frames pile up unsent, so each
/// newer frame replaces the previous one (as a congested connection's latest slot does).
final class RecordingSink: ViewerSink {
    /// Everything received in order: reliable messages and frames.
    private(set) var received: [OutboundMessage] = []
    private(set) var closedWith: (code: WebSockets.CloseCode, reason: String)?
    var isSlow = false
    private var unsentFrame: OutboundMessage?

    func sendReliable(_ message: OutboundMessage) { received.append(message) }

    func sendLatest(_ message: OutboundMessage) -> Bool {
        if isSlow {
            defer { unsentFrame = message }
            return unsentFrame != nil
        }
        received.append(message)
        return false
    }

    func close(code: WebSockets.CloseCode, reason: String) { closedWith = (code, reason) }

    /// Messages decoded as JSON objects.
    var messages: [[String: Any]] { received.map(decodeJSON) }
    /// Only the messages of one type.
    func messages(ofType type: String) -> [[String: Any]] { messages.filter { $0["type"] as? String == type } }
    /// Forgets what was received so far.
    func clear() { received.removeAll() }
}

func decodeJSON(_ message: OutboundMessage) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(message.bytes))) as? [String: Any] ?? ["type": "<not JSON>"]
}

/// A hub with a manual clock, a small scene and its own metrics registry.
final class Harness {
    let clock = ManualRoomClock()
    let prometheus = PrometheusCollectorRegistry()
    let hub: ViewerHub
    var limits: ServerLimits
    private var nextConnection: UInt64 = 1

    init(limits: ServerLimits = ServerLimits(), scene: @escaping () -> SceneConfiguration = Harness.smallScene) {
        self.limits = limits
        let metrics = ServerMetrics(factory: ServerMetrics.prometheusFactory(registry: prometheus))
        hub = ViewerHub(limits: limits, clock: clock, wallClock: { 1_763_800_000_000 }, metrics: metrics,
                        logger: Logger(label: "test"), makeConfiguration: scene)
    }

    /// 40 rows of 64 pt in 2 sections, default viewport.
    static func smallScene() -> SceneConfiguration {
        SceneConfiguration(sections: (0..<2).map { s in
            TableSection(title: "Section \(s)", rows: (0..<20).map { r in
                TableRow(id: s * 20 + r, title: "Row \(s * 20 + r)", group: "S\(s)", detail: "\(r)", height: 64)
            })
        })
    }

    /// Opens a connection and joins `room`.
    @discardableResult
    func viewer(joining room: String? = "demo", extra: String = "") -> (ConnectionID, RecordingSink) {
        let id = ConnectionID(rawValue: nextConnection)
        nextConnection += 1
        let sink = RecordingSink()
        hub.open(id, sink: sink)
        if let room { send(#"{"type":"join","room":"\#(room)"\#(extra)}"#, from: id) }
        return (id, sink)
    }

    func send(_ text: String, from id: ConnectionID) { hub.receive(.text(text), from: id) }

    /// Sends one input; `fields` is the JSON after the kind, e.g. `"x":10,"y":20`.
    func input(_ id: UInt64, t: Double, _ kind: String, _ fields: String = "", from connection: ConnectionID) {
        let extra = fields.isEmpty ? "" : "," + fields
        send(#"{"type":"input","id":\#(id),"t":\#(t),"kind":"\#(kind)"\#(extra)}"#, from: connection)
    }

    /// Advances the clock by one tick window and ticks every room.
    func tick(_ count: Int = 1) {
        for _ in 0..<count {
            clock.advance(by: limits.tickMilliseconds)
            hub.registry.tick()
        }
    }

    /// The value of a metric line on /metrics (first sample with that name), or nil.
    func metric(_ name: String) -> Double? {
        for line in prometheus.emitToString().split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }
}
