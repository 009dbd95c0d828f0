import Testing
import ScrollEngine
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// `join`'s `scene`: chosen by the join that creates a room, reported in every snapshot.
@Suite("Scene selection")
@RoomActor struct SceneSelectionTests {
    private func snapshot(_ sink: RecordingViewerSink) throws -> [String: Any] {
        let first = try #require(sink.messages.first)
        #expect(first["type"] as? String == "snapshot")
        return first
    }

    private func rowIDs(_ snapshot: [String: Any]) throws -> [[Int]] {
        let scene = try #require(snapshot["scene"] as? [String: Any])
        let sections = try #require(scene["sections"] as? [[String: Any]])
        return sections.map { $0["rows"] as? [Int] ?? [] }
    }

    @Test func withoutASceneTheRoomGetsTheInjectedDemoScene() throws {
        let h = Harness()
        let (_, sink) = h.viewer(joining: "plain")
        let s = try snapshot(sink)
        #expect(s["sceneName"] as? String == "demo")
        #expect(try rowIDs(s).map(\.count) == [20, 20])   // Harness.smallScene, not the 3000-row demo
        #expect(h.registry.room(named: "plain")?.sceneName == "demo")
    }

    @Test func seedTableSceneIsTheSeedsTwentyRowTable() throws {
        let h = Harness()
        let (_, sink) = h.viewer(joining: "seed", extra: #","scene":"seed-table""#)
        let s = try snapshot(sink)
        #expect(s["sceneName"] as? String == "seed-table")
        #expect(try rowIDs(s) == [Array(0..<20)])
        let scene = try #require(s["scene"] as? [String: Any])
        #expect((scene["layers"] as? [Any])?.isEmpty == true)
        #expect(scene["headerHeight"] as? Double == 0)
        let frame = try #require(s["frame"] as? [String: Any])
        let rows = try #require(frame["rows"] as? [[String: Any]])
        #expect(rows.first?["title"] as? String == "Option 0")
    }

    @Test func joiningAnExistingRoomGetsThatRoomsSceneWhateverItAsks() throws {
        let h = Harness()
        h.viewer(joining: "shared", extra: #","scene":"seed-table""#)
        let (_, plain) = h.viewer(joining: "shared")
        let (_, other) = h.viewer(joining: "shared", extra: #","scene":"demo""#)
        for sink in [plain, other] {
            let s = try snapshot(sink)
            #expect(s["sceneName"] as? String == "seed-table")
            #expect(try rowIDs(s) == [Array(0..<20)])
            #expect(sink.closedWith == nil)
        }
        #expect(h.registry.count == 1)
    }

    @Test func unknownSceneIsRefusedWith1008NamingTheValidScenes() throws {
        let h = Harness()
        let (_, sink) = h.viewer(joining: "nope", extra: #","scene":"seed""#)
        let expected = "field 'scene' must be one of demo, seed-table; got 'seed'"
        #expect(sink.messages.map { $0["type"] as? String } == ["error"])
        #expect(sink.messages.first?["message"] as? String == expected)
        let closed = try #require(sink.closedWith)
        #expect(closed.code == .policyViolation)
        #expect(closed.reason == expected)
        #expect(h.registry.room(named: "nope") == nil, "a refused join creates no room")
    }

    @Test func aRoomRecreatedAfterExpiryTakesTheNewJoinersScene() throws {
        var limits = ServerLimits()
        limits.roomGraceMilliseconds = 1000
        let h = Harness(limits: limits)
        let (first, _) = h.viewer(joining: "again", extra: #","scene":"seed-table""#)
        h.hub.closed(first)
        h.clock.advance(by: 1500)
        h.hub.housekeeping()
        #expect(h.registry.room(named: "again") == nil)
        let (_, sink) = h.viewer(joining: "again")
        #expect(try snapshot(sink)["sceneName"] as? String == "demo")
    }
}
