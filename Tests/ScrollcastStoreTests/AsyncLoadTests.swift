import Dispatch
import Foundation
import Logging
import Testing
import ScrollEngine
import ScrollcastRooms
import ScrollcastServerTesting
@testable import ScrollcastStore

/// A join whose room must come from the store waits for the read, and only it does: the real
/// SQLite store, behind a gate that holds its reads of one room until the test opens it.
@Suite("Asynchronous room loads")
@RoomActor struct AsyncLoadTests {
    @Test func aSlowLoadDelaysNoOtherRoomAndConcurrentJoinsShareIt() throws {
        let fixture = StoreFixture()
        var order = DemoScene.configuration().rowOrder
        order[0].swapAt(0, 2)
        do {
            let seeding = try fixture.openStore()
            seeding.roomCreated(RoomSettings(name: "slow", sceneName: "demo", driverKeyDigest: nil))
            seeding.commitRowMove(move(in: "slow", rowMoveVersion: 1, order: order)) { _ in }
            seeding.close()
        }
        let scheduler = fixture.scheduler
        let store = GatedStore(inner: try fixture.openStore(), scheduler: fixture.scheduler, gated: "slow")
        let service = RoomService(limits: ServerLimits(), services: RoomServices(
            clock: fixture.scheduler.clock, wallClock: { 0 },
            metrics: InMemoryMetrics().server,
            scenes: .standard, store: store), scheduler: fixture.scheduler, metricsExposition: { [] },
            logger: Logger(label: "test"), allowedOrigins: ["*"], host: "127.0.0.1")

        // A room nobody stored: its read is not held, but it is still asynchronous.
        let now = { scheduler.clock.now }
        let live = CountingSink(now: now)
        service.opened(ViewerID(rawValue: 1), sink: live, subprotocol: nil)
        service.receivedText(Array(#"{"type":"join","room":"live"}"#.utf8), from: ViewerID(rawValue: 1))
        try waitUntil(scheduler) { live.snapshots == 1 }
        func input(_ id: Int, _ kind: String, _ y: Int) {
            let text = #"{"type":"input","id":\#(id),"t":\#(scheduler.clock.now),"kind":"\#(kind)","x":100,"y":\#(y)}"#
            service.receivedText(Array(text.utf8), from: ViewerID(rawValue: 1))
        }
        input(1, "pointerDown", 600)
        for step in 1...5 {
            scheduler.advance(by: 10)
            input(1 + step, "pointerMove", 600 - step * 80)
        }
        scheduler.advance(by: 10)
        input(7, "pointerUp", 120)

        // Two viewers join the stored room; its read is held.
        let first = CountingSink(now: now), second = CountingSink(now: now)
        for (number, sink) in [(2, first), (3, second)] {
            service.opened(ViewerID(rawValue: UInt64(number)), sink: sink, subprotocol: nil)
            service.receivedText(Array(#"{"type":"join","room":"slow"}"#.utf8), from: ViewerID(rawValue: UInt64(number)))
        }
        let framesBefore = live.frameTimes.count
        for _ in 0..<30 { scheduler.advance(by: 1000 / 60) }
        let gaps = zip(live.frameTimes.dropFirst(framesBefore), live.frameTimes.dropFirst(framesBefore + 1)).map { $1 - $0 }
        #expect(live.frameTimes.count - framesBefore >= 28, "the flung room kept animating while the other loaded")
        #expect(gaps.allSatisfy { $0 <= 2 * 1000 / 60 }, "no frame gap over two periods: \(gaps)")
        #expect(first.snapshots == 0 && second.snapshots == 0, "the joins still wait for their room")
        #expect(store.loads(of: "slow") == 1, "the second join waits on the first one's load")

        store.open()
        try waitUntil(scheduler) { first.snapshots == 1 && second.snapshots == 1 }
        #expect(store.loads(of: "slow") == 1)
        #expect(first.lastSnapshotRowOrder == order && second.lastSnapshotRowOrder == order, "the stored room, restored")
        #expect(first.closed == nil && second.closed == nil)
    }

    /// Runs handed-over work until `condition` holds: the store's reads happen on other threads.
    private func waitUntil(_ scheduler: ManualScheduler, _ condition: () -> Bool) throws {
        guard scheduler.runUntil(condition) else { throw StoreError.timedOut }
    }

    enum StoreError: Error { case timedOut }
}

/// A viewer that counts snapshots and notes when (on the manual clock) each frame came.
private final class CountingSink: ViewerSink {
    private let now: () -> Double
    init(now: @escaping () -> Double) { self.now = now }

    private(set) var snapshots = 0
    private(set) var frameTimes: [Double] = []
    private(set) var lastSnapshotRowOrder: [[Int]]?
    private(set) var closed: CloseReason?

    func sendReliable(_ message: OutgoingMessage) { note(message) }
    func sendLatest(_ message: OutgoingMessage) -> Bool { note(message); return false }
    func close(_ reason: CloseReason) { closed = reason }

    private func note(_ message: OutgoingMessage) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(message.bytes)) as? [String: Any] else { return }
        switch object["type"] as? String {
        case "snapshot":
            snapshots += 1
            let sections = (object["scene"] as? [String: Any])?["sections"] as? [[String: Any]]
            lastSnapshotRowOrder = sections?.map { $0["rows"] as? [Int] ?? [] }
        case "frame":
            frameTimes.append(now())
        default:
            break
        }
    }
}

/// The SQLite store, but its loads of room `gated` wait (on another thread) until `open()`.
private final class GatedStore: RoomStore, @unchecked Sendable {
    private let inner: SQLiteRoomStore
    private let scheduler: ManualScheduler
    private let gated: String
    private let gate = DispatchSemaphore(value: 0)
    private let counts = NSLock()
    private var loadCounts: [String: Int] = [:]

    init(inner: SQLiteRoomStore, scheduler: ManualScheduler, gated: String) {
        self.inner = inner
        self.scheduler = scheduler
        self.gated = gated
    }

    func open() { gate.signal() }
    func loads(of room: String) -> Int { counts.withLock { loadCounts[room, default: 0] } }

    func loadRoom(named name: String, completion: @escaping (Result<StoredRoom?, RoomStoreError>) -> Void) {
        counts.withLock { loadCounts[name, default: 0] += 1 }
        guard name == gated else { return inner.loadRoom(named: name, completion: completion) }
        // The test's own box: the completion goes back to the room thread before it is called.
        let box = CompletionBox(store: self, completion: completion)
        DispatchQueue.global().async { [gate, scheduler] in
            _ = gate.wait(timeout: .now() + 10)
            gate.signal()
            scheduler.execute { RoomActor.assumeIsolated { box.store.inner.loadRoom(named: name, completion: box.completion) } }
        }
    }

    func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? { try inner.loadRoom(named: name) }
    func roomCreated(_ settings: RoomSettings) { inner.roomCreated(settings) }
    func append(_ entry: RoomLogEntry, toRoom room: String) { inner.append(entry, toRoom: room) }
    func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        inner.commitRowMove(move, completion: completion)
    }
    func roomEvicted(named name: String) { inner.roomEvicted(named: name) }
}

private struct CompletionBox: @unchecked Sendable {
    let store: GatedStore
    let completion: (Result<StoredRoom?, RoomStoreError>) -> Void
}
