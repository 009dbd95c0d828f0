import Prometheus
import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

@Suite("Ownership, relay and scene catalogue seams")
@RoomActor struct OwnershipAndRelayTests {
    @Test func aRoomMadeAgainAfterEvictionHasAHigherEpoch() throws {
        var limits = ServerLimits()
        limits.roomGraceMilliseconds = 1_000
        let h = Harness(limits: limits)
        let (first, _) = h.viewer(joining: "epochs")
        let firstLease = try #require(h.registry.room(named: "epochs")).lease
        #expect(firstLease.epoch == 1 && firstLease.node == "local")
        h.service.closed(first)
        h.clock.advance(by: 1_500)
        h.hub.housekeeping()
        h.viewer(joining: "epochs")
        #expect(try #require(h.registry.room(named: "epochs")).lease.epoch == 2)
    }

    @Test func singleNodeOwnershipGrantsARoomOnceUntilReleased() throws {
        let ownership = SingleNodeOwnership(nodeID: "n1")
        let lease = try #require(ownership.acquire(room: "r"))
        #expect(lease == RoomLease(room: "r", node: "n1", epoch: 1))
        #expect(ownership.acquire(room: "r") == nil)
        #expect(ownership.acquire(room: "s")?.epoch == 1, "epochs are per room")
        ownership.release(lease)
        #expect(ownership.acquire(room: "r")?.epoch == 2)
    }

    @Test func aRoomAnotherNodeRunsIsRefusedWith1013() {
        final class RemoteOwnership: RoomOwnership {
            let nodeID = "here"
            func acquire(room name: String) -> RoomLease? { nil }
            func release(_ lease: RoomLease) {}
        }
        let h = Harness(ownership: RemoteOwnership())
        let (_, sink) = h.viewer(joining: "elsewhere")
        #expect(sink.closedWith?.code == .tryAgainLater)
        #expect(sink.closedWith?.reason == "room 'elsewhere' is busy on another node; try again")
        #expect(h.registry.count == 0)
    }

    @Test func theLocalRelayHandsOneMessageToEveryViewerAndNothingAfterClose() {
        let relay = LocalRelay(metrics: ServerMetrics(factory: ServerMetrics.prometheusFactory(registry: PrometheusCollectorRegistry())))
        let channel = relay.openChannel(for: RoomLease(room: "r", node: "local", epoch: 1))
        let (a, b, c) = (RecordingViewerSink(), RecordingViewerSink(), RecordingViewerSink())
        channel.attach("v1", sink: a, version: .v1)
        channel.attach("v2", sink: b, version: .v1)
        channel.attach("v3", sink: c, version: .v1)
        let hello = RoomMessage(v1: OutgoingMessage(utf8: Array(#"{"type":"presence"}"#.utf8)))
        channel.send(hello, to: .everyoneExcept("v2"))
        channel.send(hello, to: .viewer("v2"))
        channel.detach("v3")
        let frame = RoomMessage(v1: OutgoingMessage(utf8: Array(#"{"type":"frame"}"#.utf8)))
        channel.sendFrame(frame, sequence: 1)
        #expect(a.received.count == 2 && a.received[0] === hello.v1 && a.received[1] === frame.v1)
        #expect(b.received.count == 2 && b.received[0] === hello.v1 && b.received[1] === frame.v1)
        #expect(c.received.count == 1, "a detached viewer gets nothing more")
        channel.close()
        channel.sendFrame(frame, sequence: 1)
        channel.attach("v4", sink: c, version: .v1)
        channel.send(hello, to: .everyone)
        #expect(a.received.count == 2 && c.received.count == 1, "a closed channel delivers nothing")
    }

    @Test func theLocalRelayHandsEachViewerItsVersionsFormAndNothingWhenThereIsNone() {
        let relay = LocalRelay(metrics: ServerMetrics(factory: ServerMetrics.prometheusFactory(registry: PrometheusCollectorRegistry())))
        let channel = relay.openChannel(for: RoomLease(room: "r", node: "local", epoch: 1))
        let (a, b, c) = (RecordingViewerSink(), RecordingViewerSink(), RecordingViewerSink())
        channel.attach("v1", sink: a, version: .v1)
        channel.attach("v2", sink: b, version: .v2)
        channel.attach("v3", sink: c, version: .v2)
        let both = RoomMessage(v1: OutgoingMessage(utf8: Array("{}".utf8)), v2: OutgoingMessage(binary: [5, 1, 0]))
        let onlyV2 = RoomMessage(v2: OutgoingMessage(binary: [3, 0, 0, 0]))
        channel.send(onlyV2, to: .everyone)
        channel.sendFrame(both, sequence: 1)
        #expect(a.received.count == 1 && a.received[0] === both.v1)
        for sink in [b, c] {
            #expect(sink.received.count == 2 && sink.received[0] === onlyV2.v2 && sink.received[1] === both.v2)
        }
    }

    @Test func anInjectedCatalogueDecidesTheScenesAndTheDefault() throws {
        let tiny = SceneCatalogue(entries: [.init(name: "tiny", build: {
            SceneConfiguration(sections: [TableSection(title: "T", rows: [TableRow(id: 7, title: "only")])])
        })], defaultName: "tiny")
        let h = Harness(scenes: tiny)
        let (_, sink) = h.viewer(joining: "a")
        #expect(sink.messages.first?["sceneName"] as? String == "tiny")
        let (_, refused) = h.viewer(joining: "b", extra: #","scene":"demo""#)
        #expect(refused.closedWith?.reason == "field 'scene' must be one of tiny; got 'demo'")
    }

    @Test func anUnknownSceneIsRefusedEvenForALiveRoom() {
        let h = Harness()
        h.viewer(joining: "live")
        let (_, sink) = h.viewer(joining: "live", extra: #","scene":"nope""#)
        #expect(sink.closedWith == CloseReason(.policyViolation, "field 'scene' must be one of demo, seed-table; got 'nope'"))
    }

    @Test func theStandardCatalogueIsDemoAndTheSeedTable() {
        let standard = SceneCatalogue.standard
        #expect(standard.entries.map(\.name) == ["demo", "seed-table"])
        #expect(standard.defaultName == "demo")
        #expect(standard.configuration(named: "demo") == DemoScene.configuration())
        #expect(standard.configuration(named: "seed-table") == SeedTableScene.configuration())
        #expect(standard.configuration(named: "Demo") == nil)
    }
}
