import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// The frame timer re-arms itself: a change reaching a room by any path gets its tick from the
/// timers alone, with nobody told to look at the deadlines again. Every test here only moves
/// the manual scheduler's clock after the change; nothing calls `tick()`.
@Suite("Frame timer re-arms itself")
@RoomActor struct FrameTimerTests {
    /// A wheel input of `dy` pt at client time `t`.
    static func wheel(_ id: UInt64, t: Double, dy: Double = 4) -> InputMessage {
        InputMessage(id: id, clientTime: t, kind: .wheel(dx: 0, dy: dy, mode: .pixel))
    }

    /// Two viewers of "demo" (the second's join announced at once), nothing pending: no timer set.
    func quietRoom(_ h: Harness) throws -> (room: Room, first: RecordingViewerSink, second: RecordingViewerSink) {
        let (_, first) = h.viewer()
        let (_, second) = h.viewer()
        h.scheduler.advance(by: 1_000)
        let room = try #require(h.registry.room(named: "demo"))
        #expect(h.registry.frameTimerDeadline == nil, "an idle room leaves no timer set")
        first.clear()
        second.clear()
        return (room, first, second)
    }

    @Test func anInputHandedStraightToTheRoomGetsItsDeferredFrame() throws {
        let h = Harness()
        let (room, sink, _) = try quietRoom(h)
        room.handle(Self.wheel(1, t: 0), from: room.viewerIDs[0])
        #expect(sink.messages(ofType: "frame").count == 1, "the first input's frame goes out at once")
        h.scheduler.advance(by: 2)
        room.handle(Self.wheel(2, t: 2), from: room.viewerIDs[0])
        #expect(sink.messages(ofType: "frame").count == 1, "the second waits half a period")
        h.scheduler.advance(by: h.limits.tickMilliseconds / 2)
        let frames = sink.messages(ofType: "frame")
        #expect(frames.count == 2)
        #expect((frames.last?["input"] as? [String: Any])?["id"] as? Int == 2)
    }

    @Test func aJoinsDeferredPresenceGoesOutOnItsOwn() throws {
        let h = Harness()
        let (room, first, _) = try quietRoom(h)
        room.join(viewer: "late-1", sink: RecordingViewerSink())
        #expect(first.messages(ofType: "presence").last?["viewers"] as? Int == 3, "announced at once")
        h.scheduler.advance(by: 10)
        // A deadline only the room knows: joins are announced at most every 250 ms.
        room.join(viewer: "late-2", sink: RecordingViewerSink())
        #expect(first.messages(ofType: "presence").count == 1)
        h.scheduler.advance(by: Room.presenceInterval - 10 - 2)
        #expect(first.messages(ofType: "presence").count == 1)
        h.scheduler.advance(by: 3)
        #expect(first.messages(ofType: "presence").count == 2)
        #expect(first.messages(ofType: "presence").last?["viewers"] as? Int == 4)
    }

    @Test func aLeaveAfterAJoinGetsItsPresence() throws {
        let h = Harness()
        let (room, first, _) = try quietRoom(h)
        room.join(viewer: "brief", sink: RecordingViewerSink())
        room.leave(viewer: "brief")
        #expect(first.messages(ofType: "presence").map { $0["viewers"] as? Int } == [3])
        h.scheduler.advance(by: Room.presenceInterval + 1)
        #expect(first.messages(ofType: "presence").map { $0["viewers"] as? Int } == [3, 2])
    }

    @Test func aDriverLeavingMidFlingLeavesTheFlingAnimatedToRest() throws {
        let h = Harness()
        let (room, watcher, _) = try quietRoom(h)
        let driver = room.viewerIDs[1]
        room.handle(InputMessage(id: 1, clientTime: 0, kind: .pointerDown(Point(x: 100, y: 600))), from: driver)
        for step in 1...5 {
            h.scheduler.advance(by: 16)
            room.handle(InputMessage(id: UInt64(1 + step), clientTime: Double(step) * 16,
                                     kind: .pointerMoved(Point(x: 100, y: 600 - Double(step) * 60))), from: driver)
        }
        h.scheduler.advance(by: 16)
        room.handle(InputMessage(id: 7, clientTime: 96, kind: .pointerUp(Point(x: 100, y: 270))), from: driver)
        room.leave(viewer: driver)
        let atLeave = watcher.messages(ofType: "frame").count
        h.scheduler.advance(by: 300)
        #expect(watcher.messages(ofType: "frame").count - atLeave >= 15, "the fling goes on after its driver left")
        h.scheduler.advance(by: 10_000)
        #expect(watcher.messages(ofType: "frame").last?["animating"] as? Bool == false, "and comes to rest")
        #expect(h.registry.frameTimerDeadline == nil)
    }

    @Test func aResumingViewerJoiningThroughTheServiceGetsItsPresence() throws {
        let h = Harness()
        let (_, snapshot) = h.viewer(extra: #","resumable":true"#)
        let (_, watcher) = h.viewer()
        let first = try #require(snapshot.messages(ofType: "snapshot").first)
        let life = try #require(first["life"] as? Int)
        let seq = try #require((first["frame"] as? [String: Any])?["seq"] as? Int)
        watcher.clear()
        let (_, resumed) = h.viewer(extra: #","resume":{"life":\#(life),"seq":\#(seq),"moves":0}"#)
        #expect(resumed.messages.first?["type"] as? String == "resumed")
        #expect(watcher.messages(ofType: "presence").isEmpty, "within 250 ms of the last presence: deferred")
        h.scheduler.advance(by: Room.presenceInterval + 1)
        #expect(watcher.messages(ofType: "presence").last?["viewers"] as? Int == 3)
    }

    @Test func aMoveTakenBackWhenTheStoreFailsGetsItsDeferredFrame() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (room, watcher, _) = try quietRoom(h)
        let driver = room.viewerIDs[0]
        room.handle(InputMessage(id: 1, clientTime: 0, kind: .longPressBegan(Point(x: 150, y: 300))), from: driver)
        room.handle(InputMessage(id: 2, clientTime: 16, kind: .longPressMoved(Point(x: 150, y: 492))), from: driver)
        room.handle(InputMessage(id: 3, clientTime: 32, kind: .longPressEnded(Point(x: 150, y: 492))), from: driver)
        #expect(store.pendingCommits == 1)
        h.scheduler.advance(by: 2_000)
        #expect(h.registry.frameTimerDeadline == nil, "at rest, the commit still waiting")
        room.handle(Self.wheel(4, t: 2_032), from: driver)
        let frames = watcher.messages(ofType: "frame").count
        // The store fails outside any viewer's message: the room takes the move back, and the
        // frame showing it waits half a period after the wheel's.
        store.finishNext(failing: RoomStoreError("disk full"))
        #expect(watcher.messages(ofType: "frame").count == frames)
        h.scheduler.advance(by: h.limits.tickMilliseconds / 2)
        #expect(watcher.messages(ofType: "frame").count == frames + 1, "the order taken back is shown")
    }

    @Test func aRoomLoadedLaterRunsTheInputsThatWaitedForIt() throws {
        let store = SlowLoadingStore()
        let h = Harness(store: store)
        let (viewer, sink) = h.viewer()
        h.input(1, t: 0, "wheel", #""dx":0,"dy":4,"mode":"pixel""#, from: viewer)
        h.input(2, t: 1, "wheel", #""dx":0,"dy":4,"mode":"pixel""#, from: viewer)
        #expect(sink.messages.isEmpty, "the store is still reading the room")
        store.finishLoads()
        #expect(sink.messages.first?["type"] as? String == "snapshot")
        #expect(sink.messages(ofType: "frame").count == 1, "the first waiting input's frame at once, the second's later")
        h.scheduler.advance(by: h.limits.tickMilliseconds / 2)
        #expect((sink.messages(ofType: "frame").last?["input"] as? [String: Any])?["id"] as? Int == 2)
    }

    @Test func aReArmToAnEarlierDeadlineCancelsTheLaterTimer() throws {
        let h = Harness()
        let (room, _, _) = try quietRoom(h)
        let (_, busy) = h.viewer(joining: "busy")
        let busyRoom = try #require(h.registry.room(named: "busy"))
        h.scheduler.advance(by: 100)
        room.join(viewer: "late-1", sink: RecordingViewerSink())
        room.join(viewer: "late-2", sink: RecordingViewerSink())
        let presenceDue = try #require(h.registry.frameTimerDeadline)
        #expect(h.scheduler.pendingTimers == 1)
        // Two resizes at once (no animation): the second one's frame waits half a period.
        for (id, width) in [(1, 380.0), (2, 370.0)] {
            busyRoom.handle(InputMessage(id: UInt64(id), clientTime: 0, kind: .resize(Size(width: width, height: 800))),
                            from: busyRoom.viewerIDs[0])
        }
        let frameDue = try #require(h.registry.frameTimerDeadline)
        #expect(frameDue < presenceDue, "the busy room's deferred frame comes first")
        #expect(h.scheduler.pendingTimers == 1, "one frame timer, not one per deadline")
        #expect(h.scheduler.cancelledTimers == 1, "the later timer was cancelled, not left to fire stale")
        let fired = h.scheduler.firedTimers
        busy.clear()
        h.scheduler.advance(by: Room.presenceInterval + 1)
        #expect(busy.messages(ofType: "frame").count == 1)
        #expect(h.scheduler.firedTimers - fired == 2, "two wake-ups, the frame's and the presence's: none stale")
        #expect(h.scheduler.pendingTimers == 0 && h.registry.frameTimerDeadline == nil)
    }

    @Test func aRequestToDriveHandedStraightToTheRoomLapsesOnItsOwn() throws {
        let h = Harness()
        let (_, owner) = h.viewer(joining: "locked", extra: #","lock":true"#)
        let (_, watcher) = h.viewer(joining: "locked")
        h.scheduler.advance(by: 1_000)
        let room = try #require(h.registry.room(named: "locked"))
        #expect(h.registry.frameTimerDeadline == nil)
        room.handleSharing(.ask, from: room.viewerIDs[1])
        #expect(watcher.messages(ofType: "asked").count == 1)
        #expect(h.registry.frameTimerDeadline != nil, "the request's lapse is the room's deadline")
        h.scheduler.advance(by: h.limits.driveRequestMilliseconds + 1)
        #expect(watcher.messages(ofType: "expired").count == 1)
        #expect(owner.messages(ofType: "expired").count == 1)
        #expect(h.scheduler.pendingTimers == 0 && h.registry.frameTimerDeadline == nil)
    }
}

extension Room {
    /// The ids of the viewers here, in joining order (tests).
    var viewerIDs: [String] { viewers.map(\.id) }
}

/// A store that reads rooms on "another thread": loads complete only when the test says so.
@RoomActor final class SlowLoadingStore: RoomStore {
    private let inner = InMemoryRoomStore()
    private var loads: [(String, (Result<StoredRoom?, RoomStoreError>) -> Void)] = []

    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? { try inner.loadRoom(named: name) }
    func loadRoom(named name: String, completion: @escaping (Result<StoredRoom?, RoomStoreError>) -> Void) {
        loads.append((name, completion))
    }
    func roomCreated(_ settings: RoomSettings) { inner.roomCreated(settings) }
    func append(_ entry: RoomLogEntry, toRoom room: String) { inner.append(entry, toRoom: room) }
    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        inner.commitRowMove(move, completion: completion)
    }
    func roomEvicted(named name: String) { inner.roomEvicted(named: name) }

    /// Completes every waiting load, as the reading thread handing results back would.
    func finishLoads() {
        let waiting = loads
        loads = []
        for (name, completion) in waiting {
            completion(Result { () throws(RoomStoreError) in try inner.loadRoom(named: name) })
        }
    }
}
