import Foundation
import Testing
import ScrollEngine
import ScrollWire
import ScrollcastRecording
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// `GET /recording?room=NAME`, and recordings made from a room's log replaying to the very
/// frames its viewers received.
@Suite("Recordings")
@RoomActor struct RecordingRouteTests {
    /// Two viewers drive in turn: a row move, a fling, a wheel, a key and a scroll to a row.
    static func session(_ h: Harness) throws -> (RecordingViewerSink, RecordingViewerSink) {
        let (driver, a) = h.viewer()
        let (other, b) = h.viewer()
        _ = try h.dragRowDown(by: other, watchedBy: b)
        h.tick(40)
        h.fling(by: driver, steps: 5, interval: 12, stride: 70)
        h.tick(40)
        h.input(30, t: 2000, "wheel", #""dx":0,"dy":120,"mode":"line""#, from: other)
        h.tick(20)
        h.input(31, t: 2400, "key", #""key":"pageDown""#, from: other)
        h.tick(30)
        h.input(8, t: 1500, "scrollToRow", #""section":0,"row":2,"position":"top","animated":true"#, from: driver)
        h.tick(60)
        return (a, b)
    }

    static func frames(_ sink: RecordingViewerSink) -> [[UInt8]] {
        sink.received.filter { decodeJSON($0)["type"] as? String == "frame" }.map(\.bytes)
    }

    @Test func theRouteGivesTheRoomsRecordingWhichReplaysToEveryFrameByteForByte() throws {
        let store = WholeLogStore()
        let h = Harness(store: store)
        let (a, b) = try Self.session(h)

        let reply = try h.download("room=demo")
        #expect(reply.status == 200)
        #expect(reply.contentType == "application/x-ndjson; charset=utf-8")
        #expect(reply.headers.contains { $0.0 == "content-disposition" && $0.1 == #"attachment; filename="demo-life-1.scrollcast.jsonl""# })
        let recording = try RecordingDecoder.decode(reply.body)
        #expect(recording.header == RecordingHeader(room: "demo", life: 1, scene: "demo", rowOrder: Harness.smallScene().rowOrder,
                                                    rowMoveVersion: 0, framePeriod: h.limits.tickMilliseconds))
        #expect(recording.entries.contains { if case .cancel = $0 { false } else if case .input(_, let e) = $0 { e.kind == .key(.pageDown) } else { false } })

        let replayed = try Replay.frames(of: recording, configuration: Harness.smallScene(), sentAt: Harness.sentAt)
        let received = Self.frames(a)
        #expect(received.count > 120, "a long session (the hold before the row lifts sends no frames)")
        #expect(replayed == received, "every frame, byte for byte")
        #expect(Self.frames(b) == received.suffix(Self.frames(b).count))
        #expect(a.messages(ofType: "rowMoved").count == 1)
        #expect(a.messages(ofType: "refused").isEmpty && b.messages(ofType: "refused").isEmpty, "every input was applied")
    }

    @Test func aDriverLeavingMidGestureIsRecordedAsACancel() throws {
        let store = WholeLogStore()
        let h = Harness(store: store)
        let (driver, _) = h.viewer()
        let (_, watcher) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: driver)
        h.tick(3)
        h.input(2, t: 50, "pointerMove", #""x":100,"y":300"#, from: driver)
        h.tick(3)
        h.service.closed(driver)
        h.tick(30)
        let reply = try h.download("room=demo")
        let recording = try RecordingDecoder.decode(reply.body)
        #expect(recording.entries.contains { if case .cancel(_, let e) = $0 { e.kind == .pointerCancelled } else { false } })
        let replayed = try Replay.frames(of: recording, configuration: Harness.smallScene(), sentAt: Harness.sentAt)
        #expect(replayed.suffix(Self.frames(watcher).count) == Self.frames(watcher)[...])
    }

    @Test func aRestoredRoomsRecordingStartsFromItsStoredOrder() throws {
        let store = WholeLogStore()
        var order = Harness.smallScene().rowOrder
        order[0].swapAt(0, 5)
        store.inner.seed(StoredRoom(settings: RoomSettings(name: "kept", sceneName: "demo", driverKeyDigest: nil),
                                    rowOrder: order, rowMoveVersion: 4))
        let h = Harness(store: store)
        let (driver, sink) = h.viewer(joining: "kept")
        h.input(1, t: 0, "wheel", #""dx":0,"dy":3,"mode":"line""#, from: driver)
        h.tick(30)
        let reply = try h.download("room=kept")
        let recording = try RecordingDecoder.decode(reply.body)
        #expect(recording.header.rowOrder == order && recording.header.rowMoveVersion == 4)
        #expect(try Replay.frames(of: recording, configuration: Harness.smallScene(), sentAt: Harness.sentAt) == Self.frames(sink))
    }

    @Test func aServerWithoutWholeLogsSaysSo() throws {
        let h = Harness()
        _ = h.viewer()
        let reply = try h.download("room=demo")
        #expect(reply.status == 404)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("--data none"))
    }

    @Test(arguments: [("", 400, "name the room"), ("room=a%20b", 400, "name the room"), ("room=a b", 400, "name the room"),
                      ("x=1", 400, "name the room"), ("x=1&room=nobody", 404, "no room 'nobody'")])
    func badOrUnknownRoomsAreAnsweredClearly(_ query: String, _ status: Int, _ words: String) throws {
        let h = Harness(store: WholeLogStore())
        let reply = try h.download(query)
        #expect(reply.status == status)
        #expect(String(decoding: reply.body, as: UTF8.self).contains(words))
    }

    @Test func aLockedRoomsRecordingNeedsItsKeyFromTheHeaderOrTheQuery() {
        #expect(RecordingRoute.key(inQuery: "room=r&key=abc", authorization: nil) == "abc")
        #expect(RecordingRoute.key(inQuery: "room=r&key=abc", authorization: "Bearer xyz") == "xyz")
        #expect(RecordingRoute.key(inQuery: "room=r", authorization: "bearer  xyz") == "xyz")
        #expect(RecordingRoute.key(inQuery: "room=r", authorization: "Basic eHl6") == nil)
        let key = DriverKey.random()
        let digest = DriverKey.digest(of: key.hex)
        #expect(RecordingRoute.refusal(room: "r", keyDigest: digest, key: key.hex) == nil)
        #expect(RecordingRoute.refusal(room: "r", keyDigest: nil, key: nil) == nil)
        #expect(RecordingRoute.refusal(room: "r", keyDigest: nil, key: "anything") == nil)
        #expect(RecordingRoute.refusal(room: "r", keyDigest: digest, key: nil)?.status == 401)
        #expect(RecordingRoute.refusal(room: "r", keyDigest: digest, key: nil)?.headers.first?.0 == "www-authenticate")
        #expect(RecordingRoute.refusal(room: "r", keyDigest: digest, key: "")?.status == 403)
        #expect(RecordingRoute.refusal(room: "r", keyDigest: digest, key: String(key.hex.reversed()))?.status == 403)
    }

    @Test func otherMethodsAndPathsAreNotTheRoutes() {
        let h = Harness(store: WholeLogStore())
        #expect(h.service.streamedRoute(method: "POST", path: "/recording", query: "room=demo") == nil)
        #expect(h.service.streamedRoute(method: "GET", path: "/recordings", query: "room=demo") == nil)
        #expect(h.service.respond(method: "GET", path: "/recording", query: "room=demo") == nil)
    }

    @Test func aLogWithoutItsBeginningIsRefused() {
        let life = RoomLife(room: "r", life: 2, sceneName: "demo", startingRowOrder: [], startingRowMoveVersion: 0,
                            entries: [.frame(sequence: 7, time: 100)])
        #expect(throws: RoomStoreError("the log of room 'r' life 2 starts at frame 7, not 1: its beginning is missing, so it cannot be replayed")) {
            try life.recording(scenes: Harness.catalogue(demo: Harness.smallScene), framePeriod: nil)
        }
    }
}

extension Harness {
    /// `GET /recording?QUERY` through the streamed route, waited for (its worker runs on its
    /// own thread).
    func download(_ query: String) throws -> HTTPReply {
        let start = try #require(service.streamedRoute(method: "GET", path: "/recording", query: query))
        let writer = CollectingBodyWriter()
        start(writer)
        let (reply, aborted) = try #require(writer.wait())
        #expect(!aborted)
        return reply
    }
}
