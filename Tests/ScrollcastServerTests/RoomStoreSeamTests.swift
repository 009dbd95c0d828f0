import Foundation
import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// What rooms put through the `RoomStore` interface, and what they take back from it.
@Suite("Room store seam")
@RoomActor struct RoomStoreSeamTests {
    @Test func aRowMoveIsAnnouncedOnlyOnceTheStoreHasIt() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        let (_, b) = h.viewer()
        let (rowID, _) = try h.dragRowDown(by: driver, watchedBy: a)
        #expect(store.pendingCommits == 1)
        #expect(a.messages(ofType: "rowMoved").isEmpty && b.messages(ofType: "rowMoved").isEmpty,
                "nobody hears of the move before it is durable")
        store.finishNext()
        #expect(a.messages(ofType: "rowMoved").first?["rowId"] as? Int == rowID)
        #expect(b.messages(ofType: "rowMoved").first?["rowId"] as? Int == rowID)
        let stored = try #require(try store.loadRoom(named: "demo"))
        #expect(stored.rowMoveVersion == 1)
        #expect(stored.rowOrder.joined().contains(rowID) && stored.rowOrder != Harness.smallScene().rowOrder)
    }

    @Test func aMoveTheStoreFailsToKeepIsNeverAnnouncedAndIsCounted() throws {
        let store = DeferredStore()
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        _ = try h.dragRowDown(by: driver, watchedBy: a)
        store.finishNext(failing: RoomStoreError("disk full"))
        #expect(a.messages(ofType: "rowMoved").isEmpty)
        #expect(h.metric(ServerMetrics.Name.storeFailures) == 1)
    }

    /// The engine is deterministic, so the log (inputs at room time, and when frames were taken)
    /// is all it takes to make the same frames again, byte for byte.
    @Test func theLogReplaysToTheFramesViewersReceived() throws {
        let h = Harness()
        let (driver, viewer) = h.viewer()
        let (other, _) = h.viewer()
        viewer.clear()
        h.fling(by: driver, steps: 5, interval: 12, stride: 70)
        h.tick(40)
        h.input(1, t: 900, "wheel", #""dx":0,"dy":120,"mode":"line""#, from: other)
        h.tick(30)
        h.input(8, t: 1500, "scrollToRow", #""section":1,"row":5,"position":"middle","animated":true"#, from: driver)
        h.tick(40)

        let received = viewer.received.filter { decodeJSON($0)["type"] as? String == "frame" }.map(\.bytes)
        #expect(received.count > 60)
        let log = try #require(h.store as? InMemoryRoomStore).log(ofRoom: "demo")
        var scene = ScrollScene(configuration: Harness.smallScene())
        var lastInput: AppliedInput?
        var replayed: [[UInt8]] = []
        for entry in log {
            switch entry {
            case .input(let viewer, let event):
                _ = try scene.apply(event)
                lastInput = AppliedInput(viewer: viewer, id: event.id)
            case .cancel(_, let event, _):
                _ = try scene.apply(event)
            case .frame(let sequence, let time):
                var frame = scene.frame(at: time)
                frame.sequence = sequence
                replayed.append(ServerMessageEncoder.frame(frame, input: lastInput, sentAt: Harness.sentAt))
            }
        }
        #expect(replayed.count == received.count)
        #expect(replayed == received, "every frame, byte for byte")
    }

    @Test func aStoredRoomComesBackWithItsSceneOrderAndLock() throws {
        let store = InMemoryRoomStore()
        let key = DriverKey.random().hex
        var order = SeedTableScene.configuration().rowOrder
        order[0].swapAt(0, 19)
        store.seed(StoredRoom(settings: RoomSettings(name: "kept", sceneName: "seed-table", driverKeyDigest: DriverKey.digest(of: key)),
                              rowOrder: order, rowMoveVersion: 7))
        let h = Harness(store: store)
        let (guest, watcher) = h.viewer(joining: "kept", extra: #","lock":true,"scene":"demo""#)
        let snapshot = try #require(watcher.messages.first)
        #expect(snapshot["sceneName"] as? String == "seed-table")
        #expect(snapshot["locked"] as? Bool == true)
        #expect(snapshot["driverKey"] == nil, "a joiner without the key neither drives nor learns it")
        let sections = try #require((snapshot["scene"] as? [String: Any])?["sections"] as? [[String: Any]])
        #expect(sections.map { $0["rows"] as? [Int] ?? [] } == order)

        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: guest)
        #expect(watcher.messages(ofType: "refused").first?["code"] as? String == "locked")

        let (owner, holder) = h.viewer(joining: "kept", extra: #","driverKey":"\#(key)""#)
        #expect(holder.messages.first?["driverKey"] as? String == key, "the key holder sees the key it brought")
        holder.clear()
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: owner)
        #expect(holder.messages(ofType: "refused").isEmpty)
        #expect(holder.messages(ofType: "frame").count == 1)
    }

    @Test func theNextMoveOfARestoredRoomContinuesItsVersion() throws {
        let store = InMemoryRoomStore()
        store.seed(StoredRoom(settings: RoomSettings(name: "demo", sceneName: "demo", driverKeyDigest: nil),
                              rowOrder: Harness.smallScene().rowOrder, rowMoveVersion: 41))
        let h = Harness(store: store)
        let (driver, a) = h.viewer()
        _ = try h.dragRowDown(by: driver, watchedBy: a)
        #expect(a.messages(ofType: "rowMoved").first?["version"] as? Int == 42)
    }

    @Test func aStoredOrderThatNoLongerFitsTheSceneStartsTheRoomAfresh() throws {
        let store = InMemoryRoomStore()
        store.seed(StoredRoom(settings: RoomSettings(name: "stale", sceneName: "seed-table", driverKeyDigest: nil),
                              rowOrder: [[0, 1, 2]], rowMoveVersion: 3))
        let h = Harness(store: store)
        let (_, sink) = h.viewer(joining: "stale")
        let sections = try #require((sink.messages.first?["scene"] as? [String: Any])?["sections"] as? [[String: Any]])
        #expect(sections.map { $0["rows"] as? [Int] ?? [] } == Harness.smallScene().rowOrder,
                "the join's own (default) scene, in its own order")
    }

    @Test func creatingARoomStoresItsSettingsWithTheKeyOnlyAsADigest() throws {
        let h = Harness()
        let (_, sink) = h.viewer(joining: "locked", extra: #","lock":true,"scene":"seed-table""#)
        let key = try #require(sink.messages.first?["driverKey"] as? String)
        let stored = try #require(try h.store.loadRoom(named: "locked"))
        #expect(stored.settings == RoomSettings(name: "locked", sceneName: "seed-table", driverKeyDigest: DriverKey.digest(of: key)))
        #expect(stored.settings.driverKeyDigest != key)
    }

    @Test func anEvictedRoomIsForgottenByTheMemoryStore() throws {
        var limits = ServerLimits()
        limits.roomGraceMilliseconds = 1_000
        let h = Harness(limits: limits)
        let (viewer, _) = h.viewer(joining: "gone")
        #expect(try h.store.loadRoom(named: "gone") != nil)
        h.service.closed(viewer)
        h.clock.advance(by: 1_500)
        h.hub.housekeeping()
        #expect(try h.store.loadRoom(named: "gone") == nil)
    }

    @Test func aStoreThatCannotReadRefusesTheJoinWith1013() throws {
        final class Unreadable: RoomStore {
            func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? { throw RoomStoreError("I/O error") }
            func roomCreated(_ settings: RoomSettings) {}
            func append(_ entry: RoomLogEntry, toRoom room: String) {}
            func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {}
            func roomEvicted(named name: String) {}
        }
        let h = Harness(store: Unreadable())
        let (_, sink) = h.viewer(joining: "any")
        #expect(sink.closedWith == CloseReason(.tryAgainLater, "room store unavailable; try again"))
        #expect(h.registry.room(named: "any") == nil)
    }
}
