import Foundation
import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// Inputs stamped with the room time they were drawn at (docs/protocol.md, "Driving on the room's
/// clock"), on the manual clock: an early one is held and applied at exactly its `at`, within the
/// 500 ms bound, in room-time order with everyone's; a late one is mapped as before; a leave or a
/// cut drops what its viewer held.
@Suite("Held inputs")
@RoomActor struct HeldInputTests {
    static func applied(_ sink: RecordingViewerSink) throws -> [AppliedMessage] {
        try sink.v1Messages().compactMap { if case .applied(let a) = $0, a.cause == .input { a } else { nil } }
    }

    /// The demo room with a watcher of `applied` messages and a driver, a few ticks in; and its present.
    static func room() throws -> (Harness, RecordingViewerSink, ViewerID, Double) {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, _) = h.viewer()
        h.tick(3)
        return (h, watcher, driver, try #require(h.registry.room(named: "demo")).now)
    }

    static func stamped(_ id: Int, at: Double, _ kind: String, _ fields: String) -> String {
        #"{"type":"input","id":\#(id),"t":\#(id * 10),"at":\#(at),"kind":"\#(kind)",\#(fields)}"#
    }

    @Test func anEarlyInputIsHeldAndAppliedAtExactlyItsTime() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, driverSink) = h.viewer()
        h.tick(3)
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(Self.stamped(1, at: now + 40.5, "pointerDown", #""x":100,"y":600"#), from: driver)
        h.scheduler.advance(by: 40)
        #expect(try Self.applied(watcher).isEmpty, "held until its time")
        #expect(driverSink.messages(ofType: "presence").allSatisfy { $0["driver"] is NSNull })
        h.scheduler.advance(by: 0.5)   // the frame timer wakes for it
        #expect(try Self.applied(watcher).map(\.time) == [now + 40.5])
        let frame = try #require(watcher.messages(ofType: "frame").last)
        #expect(frame["t"] as? Double == now + 40.5)
    }

    /// `held` tells the sender alone how early its input came: what its clock needs to come back
    /// from a lead longer than its path (a held input is otherwise applied where stamped, however early).
    @Test func theSenderIsToldWhenAndHowLongItsInputIsHeld() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, driverSink) = h.viewer()
        h.tick(3)
        let room = try #require(h.registry.room(named: "demo"))
        let first = room.now
        h.send(Self.stamped(1, at: first + 40.5, "pointerDown", #""x":100,"y":600"#), from: driver)
        h.scheduler.advance(by: 50)
        let later = room.now
        h.send(Self.stamped(2, at: later - 3, "pointerMove", #""x":100,"y":590"#), from: driver)   // late: not held
        h.send(Self.stamped(3, at: later + 5000, "pointerMove", #""x":100,"y":580"#), from: driver)   // past the bound
        let held = try driverSink.v1Messages().compactMap { if case .held(let m) = $0 { m } else { nil } }
        #expect(held == [HeldMessage(input: 1, time: first, at: first + 40.5),
                         HeldMessage(input: 3, time: later, at: later + InputTimeMapper.maxLead)])
        #expect(watcher.messages(ofType: "held").isEmpty, "only the sender is told")
    }

    @Test func anInputStampedBeyondTheBoundIsHeldOnlyToIt() throws {
        let (h, watcher, driver, now) = try Self.room()
        h.send(Self.stamped(1, at: now + 5000, "key", #""key":"pageDown""#), from: driver)
        h.scheduler.advance(by: InputTimeMapper.maxLead + 50)
        #expect(try Self.applied(watcher).map(\.time) == [now + InputTimeMapper.maxLead])
    }

    @Test func aLateInputIsMappedAsAnUnstampedOne() throws {
        let (h, watcher, driver, now) = try Self.room()
        h.send(Self.stamped(1, at: now - 500, "pointerDown", #""x":100,"y":600"#), from: driver)
        h.scheduler.advance(by: 30)
        h.send(Self.stamped(2, at: now - 400, "pointerMove", #""x":100,"y":560"#), from: driver)
        // The gesture starts at the present; the move keeps its client interval (t 10 → 20).
        #expect(try Self.applied(watcher).map(\.time) == [now, now + 10])
    }

    @Test func heldInputsOfTwoViewersGoInRoomTimeOrder() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (a, _) = h.viewer()
        let (b, _) = h.viewer()
        h.tick(3)
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(Self.stamped(1, at: now + 50, "wheel", #""dx":0,"dy":10,"mode":"pixel""#), from: a)
        h.send(Self.stamped(1, at: now + 30, "wheel", #""dx":0,"dy":20,"mode":"pixel""#), from: b)
        h.scheduler.advance(by: 10)
        h.input(2, t: 100, "wheel", #""dx":0,"dy":30,"mode":"pixel""#, from: b)   // unstamped: behind b's held one
        h.input(2, t: 100, "wheel", #""dx":0,"dy":40,"mode":"pixel""#, from: a)   // unstamped: behind a's
        h.scheduler.advance(by: 60)
        let order = try Self.applied(watcher).map { a -> String in
            guard case .input(.wheel(_, let dy, _)) = a.change else { return "?" }
            return "\(Int(dy))@\(a.time - now)"
        }
        #expect(order == ["20@30.0", "30@30.0", "10@50.0", "40@50.0"])
    }

    @Test func aViewerThatLeavesLosesWhatItHeld() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, _) = h.viewer()
        let (other, otherSink) = h.viewer()
        h.tick(3)
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(Self.stamped(1, at: now + 50, "pointerDown", #""x":100,"y":600"#), from: driver)
        h.scheduler.advance(by: 20)
        h.service.closed(driver)
        h.scheduler.advance(by: 100)
        #expect(try Self.applied(watcher).isEmpty)
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: other)
        #expect(otherSink.messages(ofType: "refused").isEmpty, "nobody holds the room")
    }

    @Test func aCutWhileHoldingResumesWithoutTheHeldInput() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, driverSink) = h.viewer(extra: #","resumable":true"#)
        h.tick(3)
        var client = ResumeTests.ClientState()
        for message in try driverSink.v1Messages() { client.apply(message) }
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(Self.stamped(1, at: now + 60, "key", #""key":"pageDown""#), from: driver)
        h.scheduler.advance(by: 10)
        h.service.closed(driver)
        let (_, resumed) = h.viewer(extra: #","resumable":true"# + client.resumeJSON)
        h.scheduler.advance(by: 200)
        #expect(resumed.messages(ofType: "resumed").count == 1)
        #expect(try Self.applied(watcher).isEmpty, "the cut connection's held key is dropped")
    }

    @Test func aHeldInputIsLoggedAtTheTimeApplied() throws {
        let (h, watcher, driver, now) = try Self.room()
        h.send(Self.stamped(1, at: now + 25, "key", #""key":"pageDown""#), from: driver)
        h.scheduler.advance(by: 30)
        #expect(try Self.applied(watcher).map(\.time) == [now + 25])
        let store = try #require(h.store as? InMemoryRoomStore)
        let times = store.log(ofRoom: "demo").compactMap { entry -> Double? in
            if case .input(_, let event) = entry { event.time } else { nil }
        }
        #expect(times == [now + 25])
    }
}
