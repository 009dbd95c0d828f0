import Logging
import ScrollEngine
import ScrollWire
import ScrollcastRooms
import ScrollcastClusterTesting
import ScrollcastServerTesting
@testable import ScrollcastCluster

/// A cluster inside one test: every node a real `RoomService` with its `ClusterNode`, all on one
/// manual scheduler and clock, sharing an `InMemoryBroker` in place of Redis.
@RoomActor final class ClusterHarness {
    let clock = ManualRoomClock()
    let scheduler: ManualScheduler
    let broker: InMemoryBroker
    private(set) var nodes: [String: TestNode] = [:]

    init(nodes ids: [String]) {
        scheduler = ManualScheduler(clock: clock)
        broker = InMemoryBroker(scheduler: scheduler, clock: clock)
        for id in ids { nodes[id] = TestNode(id: id, harness: self) }
        scheduler.runDue()
    }

    subscript(id: String) -> TestNode { nodes[id]! }

    /// Lets `milliseconds` of time pass, running every timer and round trip at its time.
    func run(_ milliseconds: Double) { scheduler.advance(by: milliseconds) }

    /// Advances in steps of one frame until `condition` holds; false if `limit` ms pass first.
    @discardableResult
    func run(upTo limit: Double, until condition: () -> Bool) -> Bool {
        var elapsed = 0.0
        while !condition() {
            guard elapsed < limit else { return false }
            run(16)
            elapsed += 16
        }
        return true
    }
}

/// One node of a `ClusterHarness`.
@RoomActor final class TestNode {
    let id: String
    let metrics = InMemoryMetrics()
    let cluster: ClusterNode
    let backend: InMemoryClusterBackend
    let service: RoomService
    /// This node's catalogue: its own uploads, as each process has.
    let scenes = SceneCatalogue(entries: [.init(name: "demo", build: TestNode.smallScene)], defaultName: "demo")
    private var nextConnection: UInt64 = 1

    init(id: String, harness: ClusterHarness) {
        self.id = id
        var logger = Logger(label: "cluster-test \(id)")
        logger.logLevel = .critical
        backend = harness.broker.backend(for: id)
        cluster = ClusterNode(configuration: ClusterConfiguration(nodeID: id), backend: backend, scheduler: harness.scheduler,
                              serverMetrics: metrics.server, metricsFactory: metrics.factory, logger: logger, clock: harness.clock,
                              wallClock: { 1_763_800_000_000 })
        let services = RoomServices(clock: harness.clock, wallClock: { 1_763_800_000_000 }, metrics: metrics.server, scenes: scenes,
                                    store: cluster.store, ownership: cluster.ownership, relay: cluster.relay)
        service = RoomService(limits: ServerLimits(), services: services, scheduler: harness.scheduler, metricsExposition: { [] },
                              logger: logger, allowedOrigins: ["*"], host: "127.0.0.1", cluster: cluster)
        service.started(port: 0)
    }

    /// 40 rows of 64 pt in 2 sections.
    nonisolated static func smallScene() -> SceneConfiguration {
        SceneConfiguration(sections: (0..<2).map { s in
            TableSection(title: "Section \(s)", rows: (0..<20).map { r in
                TableRow(id: s * 20 + r, title: "Row \(s * 20 + r)", group: "S\(s)", detail: "\(r)", height: 64)
            })
        })
    }

    /// A viewer (protocol v1) connected here, joining `room` (asking for `scene` if given; `extra`
    /// is more of the join's JSON fields, after a comma: `"lock":true`).
    func viewer(joining room: String, scene: String? = nil, extra: String = "") -> TestViewer {
        let connection = ViewerID(rawValue: nextConnection)
        nextConnection += 1
        let sink = RecordingViewerSink()
        service.opened(connection, sink: sink, subprotocol: nil)
        let asked = (scene.map { #","scene":"\#($0)""# } ?? "") + (extra.isEmpty ? "" : "," + extra)
        service.receivedText(#"{"type":"join","room":"\#(room)"\#(asked)}"#.utf8, from: connection)
        return TestViewer(connection: connection, sink: sink, node: self)
    }

    /// The state of room `room`'s link here, if there is one.
    func link(_ room: String) -> LinkState? { cluster.links[room]?.state }

    /// The total of counter `name` on this node; nil if the node never made it.
    func counter(_ name: String) -> Int64? { metrics.counter(name) }
}

/// A viewer connected to a `TestNode`.
@RoomActor struct TestViewer {
    let connection: ViewerID
    let sink: RecordingViewerSink
    let node: TestNode

    /// What it received, decoded (protocol v1).
    var messages: [ServerMessage] { sink.received.compactMap { try? ServerMessageDecoder.decode($0.bytes) } }

    /// The seq of each snapshot and frame, in order: ("snapshot"|"frame", seq).
    var sequence: [(kind: String, seq: UInt64)] {
        messages.compactMap {
            switch $0 {
            case .snapshot(let snapshot): ("snapshot", snapshot.frame.seq)
            case .frame(let frame): ("frame", frame.seq)
            default: nil
            }
        }
    }

    var snapshots: Int { sequence.filter { $0.kind == "snapshot" }.count }

    /// Sends one input; `fields` is the JSON after the kind, e.g. `"x":10,"y":20`.
    func input(_ id: UInt64, t: Double, _ kind: String, _ fields: String = "") {
        let extra = fields.isEmpty ? "" : "," + fields
        node.service.receivedText(#"{"type":"input","id":\#(id),"t":\#(t),"kind":"\#(kind)"\#(extra)}"#.utf8, from: connection)
    }

    /// An upward fling from y = 600 (pointer down, 5 moves every 16 ms, pointer up), from id `first`.
    func fling(from first: UInt64, harness: ClusterHarness) {
        input(first, t: 0, "pointerDown", #""x":100,"y":600"#)
        for step in 1...5 {
            harness.run(16)
            input(first + UInt64(step), t: Double(step) * 16, "pointerMove", #""x":100,"y":\#(600 - step * 40)"#)
        }
        harness.run(16)
        input(first + 6, t: 96, "pointerUp", #""x":100,"y":380"#)
    }
}
