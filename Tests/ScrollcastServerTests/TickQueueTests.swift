import Testing
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// The frame timer from the queue of room deadlines: one wake-up serves every room due in the
/// same millisecond, and a room's input never makes the timer look at the idle rooms.
@Suite("Tick queue")
@RoomActor struct TickQueueTests {
    @Test func roomsDueInTheSameMillisecondShareOneWakeUp() {
        let h = Harness()
        let viewers = (0..<20).map { h.viewer(joining: "room-\($0)") }
        let drivers = viewers.map(\.0)
        // The same fling in every room at the same instants: their frames fall due together.
        for driver in drivers { h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver) }
        for step in 1...5 {
            h.scheduler.advance(by: 10)
            for driver in drivers {
                h.input(UInt64(1 + step), t: Double(step) * 10, "pointerMove", #""x":100,"y":\#(600 - step * 70)"#, from: driver)
            }
        }
        h.scheduler.advance(by: 10)
        for driver in drivers { h.input(7, t: 60, "pointerUp", #""x":100,"y":215"#, from: driver) }
        let firedBefore = h.scheduler.firedTimers
        for (_, sink) in viewers { sink.clear() }

        h.scheduler.advance(by: 300)
        let frames = viewers[0].1.messages(ofType: "frame").count
        #expect(frames >= 16, "the rooms animated: \(frames) frames in 300 ms")
        for index in 1..<20 {
            #expect(viewers[index].1.messages(ofType: "frame").count == frames, "every room ticked alike")
        }
        let wakeUps = h.scheduler.firedTimers - firedBefore
        #expect(wakeUps <= frames + 2, "one wake-up per frame time for all 20 rooms, not one per room: \(wakeUps)")
    }

    @Test func inputInOneRoomLeavesAThousandIdleRoomsOutOfTheQueue() {
        let h = Harness()
        for index in 0..<1000 { h.viewer(joining: "idle-\(index)") }
        h.scheduler.advance(by: 1000)
        #expect(h.registry.nextTickDeadline == nil, "idle rooms want no tick")
        let (driver, _) = h.viewer(joining: "busy")
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver)
        for step in 1...100 {
            h.scheduler.advance(by: 4)
            h.input(UInt64(1 + step), t: Double(step) * 4, "pointerMove", #""x":100,"y":\#(600 - step)"#, from: driver)
            #expect(h.registry.queuedDeadlines <= 3, "only the busy room's deadlines are queued")
        }
    }
}
