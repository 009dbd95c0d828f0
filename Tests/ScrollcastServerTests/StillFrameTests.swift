import Testing
import ScrollWire
@testable import ScrollcastRooms

/// docs/protocol.md, `frame`: a room sends a frame for input and when something a viewer would
/// see changes, never the same picture again because time passed.
@Suite("No frames while nothing changes")
@RoomActor struct StillFrameTests {
    /// Holds a row still until it lifts (info-panel-and-row-moving.txt: 0.5 s), ticking the room
    /// at its frame rate; returns the frames sent during the hold and the first one after it.
    func holdUntilLift(_ version: WireVersion) throws -> (duringHold: [[String: Any]], lifted: Bool, frames: Int) {
        let h = Harness()
        let (driver, sink) = h.viewer(version: version)
        let (_, watcher) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":150,"y":400"#, from: driver)
        let room = try #require(h.registry.room(named: "demo"))
        let pressedAt = room.now
        watcher.clear()
        var duringHold: [[String: Any]] = []
        while room.now < pressedAt + 480 {
            h.tick()
            duringHold += watcher.messages(ofType: "frame")
            watcher.clear()
        }
        var lifted = false
        while room.now < pressedAt + 700, !lifted {
            h.tick()
            lifted = watcher.messages(ofType: "frame").contains { $0["lifted"] is [String: Any] }
        }
        _ = sink
        return (duringHold, lifted, watcher.messages(ofType: "frame").count)
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aStillHoldSendsNoFrameAndFramesResumeWhenTheRowLifts(_ driverVersion: WireVersion) throws {
        let (duringHold, lifted, _) = try holdUntilLift(driverVersion)
        #expect(duringHold.isEmpty, "frames during the hold: \(duringHold.map { $0["seq"] ?? "?" })")
        #expect(lifted, "the row lifts after the hold, in a frame")
    }

    @Test func theLastFrameBeforeTheHoldSaysAnimatingAndTheRoomStillWantsTicks() throws {
        let h = Harness()
        let (driver, sink) = h.viewer()
        sink.clear()
        h.input(1, t: 0, "pointerDown", #""x":150,"y":400"#, from: driver)
        let frame = try #require(sink.messages(ofType: "frame").last)
        #expect(frame["animating"] as? Bool == true, "the lift is coming without more input")
        h.tick(6)
        let room = try #require(h.registry.room(named: "demo"))
        #expect(room.nextTickDue != nil, "the room keeps looking, so the lift goes out on time")
    }

    @Test func motionEndsWithAFrameThatSaysNotAnimatingAndThenSilence() throws {
        let h = Harness()
        let (driver, sink) = h.viewer()
        h.fling(by: driver, steps: 6, interval: 16, stride: 30)
        for _ in 0..<600 where h.registry.room(named: "demo")?.nextTickDue != nil { h.tick() }
        let frames = sink.messages(ofType: "frame")
        #expect(frames.last?["animating"] as? Bool == false, "the last frame says motion stopped")
        #expect(frames.dropLast().allSatisfy { $0["animating"] as? Bool == true })
        let seqs = frames.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(seqs.indices.map { seqs[0] + $0 }), "skipped pictures take no seq: no gaps")
        let decoded: [FrameMessage] = try sink.v1Messages().compactMap { if case .frame(let f) = $0 { f } else { nil } }
        // A frame for input may repeat the picture (it names the input); one for time alone may not.
        for (a, b) in zip(decoded, decoded.dropFirst()) where a.input == b.input {
            var (x, y) = (a, b)
            (x.seq, x.time, x.sentAt, x.input) = (0, 0, 0, nil)
            (y.seq, y.time, y.sentAt, y.input) = (0, 0, 0, nil)
            #expect(x != y, "frame \(b.seq) repeats frame \(a.seq)")
        }
        sink.clear()
        h.tick(60)
        #expect(sink.received.isEmpty)
    }
}
