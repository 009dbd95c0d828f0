import Foundation
import Testing
import ScrollEngine
import ScrollWire
@testable import ScrollcastRooms

/// What a room does while its store cannot write (disk full, file made read-only): moves are
/// refused `unavailable` before they are applied, scrolling goes on, and a move whose commit
/// fails anyway is taken back, so viewers never hold an order the store does not.
@Suite("Store failures")
@RoomActor struct StoreFailureTests {
    /// The row order in a new viewer's snapshot of `room`.
    func order(seenBy h: Harness, in room: String = "demo") throws -> [[Int]] {
        let (id, sink) = h.viewer(joining: room)
        defer { h.service.closed(id) }
        let sections = try #require((sink.messages.first?["scene"] as? [String: Any])?["sections"] as? [[String: Any]])
        return sections.map { $0["rows"] as? [Int] ?? [] }
    }

    /// Lifts the row under y = 300 with an explicit long press, carries it 3 rows down and
    /// drops it; ids `first`…`first + 2`, times from `t`.
    func longPressMove(by viewer: ViewerID, in h: Harness, first: UInt64 = 1, t: Double = 0) {
        h.input(first, t: t, "longPressBegan", #""x":150,"y":300"#, from: viewer)
        h.input(first + 1, t: t + 16, "longPressMove", #""x":150,"y":492"#, from: viewer)
        h.input(first + 2, t: t + 32, "longPressEnd", #""x":150,"y":492"#, from: viewer)
    }

    @Test func aLongPressIsRefusedUnavailableWhileTheStoreFailsAndNothingIsLifted() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, sink) = h.viewer()
        store.accepting = false
        sink.clear()
        h.input(1, t: 0, "longPressBegan", #""x":150,"y":300"#, from: driver)
        let refused = try #require(sink.messages(ofType: "refused").first)
        #expect(refused["input"] as? Int == 1)
        #expect(refused["code"] as? String == RefusalCode.unavailable.rawValue)
        #expect((refused["reason"] as? String)?.contains("scrolling still works") == true)
        #expect(sink.messages(ofType: "frame").isEmpty && sink.messages(ofType: "presence").isEmpty,
                "nothing lifted, nobody claimed the room")
        #expect(h.registry.room(named: "demo")?.driver == nil)
        #expect(h.metric(ServerMetrics.Name.unavailableRefusals) == 1)
        #expect(store.pendingCommits == 0)
    }

    @Test func aDropIsRefusedUnavailableTheRowGoesBackAndScrollingGoesOn() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        let (other, b) = h.viewer()
        let before = try order(seenBy: h)
        // The row is lifted by holding the pointer (that cannot be refused: it may be a scroll);
        // the store fails while it is held, so the drop is what is refused.
        h.input(1, t: 0, "pointerDown", #""x":150,"y":332"#, from: driver)
        h.tick(36)
        var t = h.limits.tickMilliseconds * 36
        for step in 1...10 {
            h.input(UInt64(1 + step), t: t, "pointerMove", #""x":150,"y":\#(332 + 20 * step)"#, from: driver)
            t += 16
            h.tick()
        }
        #expect(a.messages(ofType: "frame").last?["lifted"] is [String: Any])
        store.accepting = false
        a.clear(); b.clear()
        h.input(12, t: t, "pointerUp", #""x":150,"y":532"#, from: driver)

        #expect(a.messages(ofType: "refused").first?["code"] as? String == "unavailable")
        #expect(a.messages(ofType: "refused").first?["input"] as? Int == 12)
        #expect(b.messages(ofType: "refused").isEmpty, "only the driver hears of it")
        #expect(store.pendingCommits == 0, "no move was applied, so none was committed")
        #expect(a.messages(ofType: "rowMoved").isEmpty && b.messages(ofType: "rowMoved").isEmpty)
        #expect(b.messages(ofType: "presence").last?["driver"] is NSNull, "the gesture ended: the room is free")
        h.tick(40)
        #expect(try order(seenBy: h) == before, "the row went back where it was")
        #expect(b.messages(ofType: "frame").last?["lifted"] is NSNull)

        // Anyone may scroll meanwhile: frames keep coming.
        b.clear()
        h.input(1, t: t + 1_000, "wheel", #""dx":0,"dy":240,"mode":"pixel""#, from: other)
        #expect(b.messages(ofType: "refused").isEmpty)
        h.tick(30)
        let frames = b.messages(ofType: "frame")
        #expect(!frames.isEmpty)
        #expect((frames.last?["offset"] as? Double ?? 0) > (frames.first?["offset"] as? Double ?? 0) || frames.count == 1)

        // The gauge says so at the next housekeeping; the store recovers; moves work again.
        h.hub.housekeeping()
        #expect(h.metric(ServerMetrics.Name.storeWritable) == 0)
        store.accepting = true
        h.hub.housekeeping()
        #expect(h.metric(ServerMetrics.Name.storeWritable) == 1)
        #expect(store.housekeepingRuns == 2)
        h.tick(120)
        a.clear()
        longPressMove(by: driver, in: h, first: 13, t: t + 5_000)
        #expect(a.messages(ofType: "refused").isEmpty)
        #expect(store.pendingCommits == 1)
        store.finishNext()
        #expect(a.messages(ofType: "rowMoved").first?["version"] as? Int == 1)
    }

    @Test func aCommitThatFailsAfterTheCheckIsTakenBackAndTheNextMoveReusesItsNumber() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        let before = try order(seenBy: h)
        longPressMove(by: driver, in: h)
        #expect(store.pendingCommits == 1)
        #expect(try order(seenBy: h) != before, "applied, waiting for its commit")
        a.clear()
        store.finishNext(failing: RoomStoreError("disk I/O error"))
        #expect(a.messages(ofType: "rowMoved").isEmpty)
        #expect(h.metric(ServerMetrics.Name.storeFailures) == 1)
        #expect(try order(seenBy: h) == before, "the room went back to the stored order: what viewers were told")
        h.tick()
        let frame = try #require(a.messages(ofType: "frame").last)
        #expect(frame["lifted"] is NSNull, "and shows it at the next frame")
        let shown = (frame["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        let expected = before.joined().filter(shown.contains)
        #expect(!shown.isEmpty && shown == expected, "rows drawn in the stored order")

        longPressMove(by: driver, in: h, first: 4, t: 1_000)
        store.finishNext()
        #expect(a.messages(ofType: "rowMoved").first?["version"] as? Int == 1)
        #expect(try store.loadRoom(named: "demo")?.rowMoveVersion == 1)
        #expect(try store.loadRoom(named: "demo")?.rowOrder == (try order(seenBy: h)))
    }

    @Test func eachCancelTheRoomAppliesItselfIsLoggedWithItsCause() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, _) = h.viewer()
        let (leaver, _) = h.viewer()
        func cancels() -> [RoomLogEntry.CancelCause] {
            store.inner.log(ofRoom: "demo").compactMap { if case .cancel(_, _, let cause) = $0 { cause } else { nil } }
        }
        // A driver leaves mid-gesture.
        h.input(1, t: 0, "longPressBegan", #""x":150,"y":300"#, from: leaver)
        h.service.closed(leaver)
        #expect(cancels() == [.leave])
        // A drop the store could not keep (the row was lifted while it still could).
        h.input(1, t: 100, "longPressBegan", #""x":150,"y":300"#, from: driver)
        h.input(2, t: 116, "longPressMove", #""x":150,"y":492"#, from: driver)
        store.accepting = false
        h.input(3, t: 132, "longPressEnd", #""x":150,"y":492"#, from: driver)
        #expect(cancels() == [.leave, .unavailable])
        // A move taken back while the next gesture is under way.
        store.accepting = true
        longPressMove(by: driver, in: h, first: 4, t: 200)
        h.input(7, t: 300, "longPressBegan", #""x":150,"y":300"#, from: driver)
        store.finishNext(failing: RoomStoreError("disk I/O error"))
        #expect(cancels() == [.leave, .unavailable, .takeBack])
    }

    @Test func aTakeBackSetsTheFrameTimerForTheFrameThatShowsIt() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        longPressMove(by: driver, in: h)
        h.scheduler.advance(by: 2_000)  // the drop settles; the room comes to rest
        // A second row is held until it lifts and dragged while the first move's commit waits.
        h.input(4, t: 2_000, "longPressBegan", #""x":150,"y":300"#, from: driver)
        h.scheduler.advance(by: 700)
        h.input(5, t: 2_700, "longPressMove", #""x":150,"y":420"#, from: driver)
        h.scheduler.advance(by: 500)
        h.input(6, t: 3_200, "longPressMove", #""x":150,"y":430"#, from: driver)
        a.clear()
        // The store's completion, handed back on its own (no viewer's message follows it), less
        // than half a period after the last frame: the frame showing the take-back must wait.
        store.finishNext(failing: RoomStoreError("disk I/O error"))
        #expect(a.messages(ofType: "presence").last?["driver"] is NSNull, "the gesture ended as a cancel")
        #expect(a.messages(ofType: "frame").isEmpty, "frames stay half a period apart")
        h.scheduler.advance(by: h.limits.tickMilliseconds / 2 + 1)
        let frame = try #require(a.messages(ofType: "frame").last, "the frame timer was set for it")
        #expect(frame["lifted"] is NSNull)
    }

    @Test func movesBuiltOnAFailedOneAreTakenBackWithItAndNeverStored() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        let before = try order(seenBy: h)
        longPressMove(by: driver, in: h)
        longPressMove(by: driver, in: h, first: 4, t: 100)
        #expect(store.pendingCommits == 2)
        // A gesture under way when the first commit fails ends as a cancel.
        h.input(7, t: 200, "longPressBegan", #""x":150,"y":300"#, from: driver)
        a.clear()
        store.finishNext(failing: RoomStoreError("disk I/O error"))
        #expect(a.messages(ofType: "presence").last?["driver"] is NSNull)
        store.finishNext()  // the store itself refuses it: it does not follow the stored move
        #expect(a.messages(ofType: "rowMoved").isEmpty)
        #expect(h.metric(ServerMetrics.Name.storeFailures) == 2)
        #expect(try store.loadRoom(named: "demo")?.rowMoveVersion == 0)
        #expect(try order(seenBy: h) == before)
    }

    @Test func aRoomAtRestTellsTheStoreWhereAndComesBackThere() throws {
        let store = DeferredStore()
        var limits = ServerLimits()
        limits.roomGraceMilliseconds = 1_000
        let h = Harness(limits: limits, store: store)
        let (driver, sink) = h.viewer()
        h.input(1, t: 0, "wheel", #""dx":0,"dy":300,"mode":"pixel""#, from: driver)
        h.tick(120)
        let rest = try #require(sink.messages(ofType: "frame").last)
        #expect(rest["animating"] as? Bool == false)
        let offset = try #require(rest["offset"] as? Double)
        #expect(offset > 0)
        #expect(store.checkpoints.last == RoomCheckpoint(room: "demo", restingOffset: offset))
        let count = store.checkpoints.count
        h.tick(10)
        #expect(store.checkpoints.count == count, "an idle room checkpoints nothing more")

        // Evicted and restored (the memory store keeps a record only while the room lives, so
        // seed one as a durable store would have kept it).
        let kept = try #require(try store.loadRoom(named: "demo"))
        #expect(kept.restingOffset == offset)
        h.service.closed(driver)
        h.clock.advance(by: 1_500)
        h.hub.housekeeping()
        #expect(h.registry.room(named: "demo") == nil)
        store.inner.seed(kept)
        let (_, late) = h.viewer()
        let frame = try #require(late.messages.first?["frame"] as? [String: Any])
        #expect(frame["offset"] as? Double == offset, "the snapshot shows the room where it came to rest")
    }
}
