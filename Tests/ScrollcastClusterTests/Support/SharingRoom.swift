import RedisTesting
import ScrollWire
import ScrollcastRooms
@testable import ScrollcastCluster

/// A locked room shared across three nodes of a `ClusterHarness`, for the sharing tests: n1 runs
/// it, where `holder` created it; `follower` on n2 joined with the key; `watcher` on n3 only
/// watches. With `relayed` false the broker loses every sharing message a node passes to the
/// owner: the known-bad case each test's checks must catch.
@RoomActor struct SharingRoom {
    let cluster: ClusterHarness
    let holder: TestViewer
    let follower: TestViewer
    let watcher: TestViewer

    init(relayed: Bool = true) throws {
        let cluster = ClusterHarness(nodes: ["n1", "n2", "n3"])
        self.cluster = cluster
        if !relayed {
            cluster.broker.losesNodeMessage = { payload in
                if case .sharing? = NodeMessage.decode(payload) { true } else { false }
            }
        }
        let holder = cluster["n1"].viewer(joining: "lobby", extra: #""lock":true"#)
        self.holder = holder
        guard cluster.run(upTo: 1_000, until: { holder.snapshots == 1 }), let key = holder.snapshot?.driverKey else {
            throw TestFailure("the locked room was not made on n1")
        }
        let follower = cluster["n2"].viewer(joining: "lobby", extra: #""driverKey":"\#(key)""#)
        let watcher = cluster["n3"].viewer(joining: "lobby", extra: #""resumable":true"#)
        (self.follower, self.watcher) = (follower, watcher)
        guard cluster.run(upTo: 1_000, until: { follower.snapshots == 1 && watcher.snapshots == 1 }) else {
            throw TestFailure("the followers' viewers got no snapshot")
        }
    }

    /// The watcher asks to drive; the problems if the request does not reach it and every key holder.
    func ask() -> [String] {
        var problems: [String] = []
        let asker = watcher.id
        watcher.send(#"{"type":"ask"}"#)
        expect("the request did not reach every key holder and the asker", in: &problems) {
            [holder, follower, watcher].allSatisfy { $0.notices.contains { if case .asked(asker, _) = $0 { true } else { false } } }
        }
        return problems
    }

    /// Lets up to `limit` ms pass until `condition` holds; else `problem` joins `problems`.
    func expect(_ problem: String, within limit: Double = 1_000, in problems: inout [String], _ condition: () -> Bool) {
        if !cluster.run(upTo: limit, until: condition) { problems.append(problem) }
    }
}

extension TestViewer {
    /// Its id in the room, from its latest snapshot or `resumed`.
    var id: String {
        for message in messages.reversed() {
            if case .snapshot(let snapshot) = message { return snapshot.viewer }
            if case .resumed(let resumed) = message { return resumed.viewer }
        }
        return "?"
    }

    /// Whether its join was answered (a snapshot, or `resumed`).
    var joined: Bool { id != "?" }

    var snapshot: SnapshotMessage? {
        messages.last { if case .snapshot = $0 { true } else { false } }.flatMap { if case .snapshot(let s) = $0 { s } else { nil } }
    }

    /// The sharing notices it received, in order.
    var notices: [SharingNotice] { messages.compactMap { if case .sharing(let notice) = $0 { notice } else { nil } } }

    /// The codes of the refusals it received: of its sharing messages (`input` nil) or of input `input`.
    func refusals(of input: UInt64? = nil) -> [String] {
        messages.compactMap { if case .refused(let id, let code, _) = $0, id == input { code } else { nil } }
    }

    /// The latest presence's sharing fields.
    var sharing: (exploring: Int, granted: [String])? {
        for message in messages.reversed() {
            if case .presence(_, _, _, let exploring, let granted) = message { return (exploring, granted) }
        }
        return nil
    }

    /// Whether a frame named its input `input` as applied.
    func sawApplied(_ input: UInt64, of viewer: String) -> Bool {
        messages.contains { if case .frame(let frame) = $0 { frame.input == AppliedInput(viewer: viewer, id: input) } else { false } }
    }

    /// Sends one client message (JSON text).
    func send(_ json: String) {
        node.service.receivedText(json.utf8, from: connection)
    }

    /// A wheel input, which needs no claim: applied when this viewer may drive.
    func wheel(_ id: UInt64) {
        input(id, t: Double(id) * 16, "wheel", #""dx":0,"dy":40,"mode":"pixel""#)
    }

    /// Its connection closes.
    func close() {
        node.service.closed(connection)
    }
}
