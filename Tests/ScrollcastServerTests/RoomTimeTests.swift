import Foundation
import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// Room times on the 1/256 ms grid (`RoomTime`): the room rounds every time it gives a change
/// where it stamps it, so a version-2 batch writes times as short counts, while order, the floor
/// and every replica's doubles hold.
@Suite("Room times on the grid")
@RoomActor struct RoomTimeTests {
    static func onGrid(_ t: Double) -> Bool { (t * 256).rounded() == t * 256 }

    @Test func aStampIsOnTheGridAtOrAfterTheFloorAndKeepsOrder() {
        var random = SeededRandom(seed: 29)
        var floor = 0.0, previous = -Double.infinity
        for _ in 0..<10_000 {
            // Arbitrary doubles, as the clock and the input time mapping give, often at the floor.
            let time = Double.random(in: 0..<1, using: &random) < 0.3 ? floor : floor + Double.random(in: 0..<20, using: &random)
            let stamp = RoomTime.stamp(time, floor: floor)
            #expect(Self.onGrid(stamp))
            #expect(stamp >= floor && stamp >= previous, "never before the floor, nor an earlier stamp")
            #expect(stamp < max(time, floor) + 1.0 / 256, "less than a step past what was asked")
            #expect(stamp <= time || stamp == RoomTime.ceiling(floor), "rounded down unless the floor forbids")
            previous = stamp
            // The room's next floor: after the last change, or just after a mark (off the grid).
            floor = Double.random(in: 0..<1, using: &random) < 0.5 ? stamp : (stamp + Double.random(in: 0..<2, using: &random)).nextUp
        }
        #expect(RoomTime.stamp(1000.5, floor: 0) == 1000.5, "a grid time stays as it is (a page stamps on the grid)")
        #expect(RoomTime.stamp(1000.001, floor: 0) == 1000)
        // The sum named with its type: as literals inside `#expect` it took the type checker 3 s.
        let nextStep: Double = 1000 + 1.0 / 256
        #expect(RoomTime.stamp(1000.001, floor: 1000.0001) == nextStep)
    }

    /// A fling at a clock off the grid: every time the room gives a change is on the grid, in
    /// order, and the version-2 batch of them writes no time as an f64.
    @Test func aFlingsTimesAreOnTheGridAndTheBatchWritesThemShort() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, _) = h.viewer()
        h.clock.advance(by: 1000.0 / 3)   // the clock off the grid
        h.tick(3)
        h.fling(by: driver, steps: 8, interval: 1000.0 / 60, stride: 13)
        let applied = try watcher.v1Messages().compactMap { if case .applied(let a) = $0, a.cause == .input { a } else { nil } }
        #expect(applied.count == 10)
        #expect(applied.allSatisfy { Self.onGrid($0.time) }, "\(applied.map(\.time))")
        #expect(zip(applied, applied.dropFirst()).allSatisfy { $0.time <= $1.time })
        let entries = applied.map { var a = $0; a.complete = nil; return a }
        let last = try #require(entries.last).time
        let batch = BatchMessage(changes: 10, complete: BatchMessage.compactMark(last + 3.3, after: last), applied: entries)
        let bytes = ServerMessageEncoderV2.batch(batch)
        // Known bad: the same times a few µs off the grid, as the clock gives them, each take an
        // f64 (9 bytes instead of 2–3 here).
        var offGrid = batch
        for i in offGrid.applied.indices { offGrid.applied[i].time += Double(i + 1) * 0.0003 }
        let long = ServerMessageEncoderV2.batch(offGrid)
        #expect(long.count - bytes.count >= 10 * 5, "\(bytes.count) against \(long.count) bytes")
        var decoder = ServerMessageDecoderV2()
        guard case .message(.batch(let decoded)) = try decoder.decode(bytes) else { Issue.record("not a batch"); return }
        #expect(decoded.applied.map(\.time.bitPattern) == entries.map(\.time.bitPattern), "the very doubles")
    }

    /// A page stamps `at` on the grid (Public/js/replica/page-replica.js): the room applies it at
    /// exactly `at`; an `at` off the grid is applied at the grid time before it.
    @Test func anEarlyInputIsHeldToItsGridTime() throws {
        let (h, watcher, driver, now) = try HeldInputTests.room()
        let due = RoomTime.ceiling(now + 40.3)
        h.send(HeldInputTests.stamped(1, at: due, "pointerDown", #""x":100,"y":600"#), from: driver)
        h.send(HeldInputTests.stamped(2, at: due + 10.001, "pointerMove", #""x":100,"y":560"#), from: driver)
        h.scheduler.advance(by: 60)
        #expect(try HeldInputTests.applied(watcher).map(\.time) == [due, RoomTime.floor(due + 10.001)])
    }
}
