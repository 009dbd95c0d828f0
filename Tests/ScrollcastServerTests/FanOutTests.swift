import Testing
import ScrollcastServerTesting
@testable import ScrollcastRooms

@Suite("Frames and fan-out")
@RoomActor struct FanOutTests {
    @Test func joinerGetsSnapshotFirstAndNothingElseWhileIdle() throws {
        let h = Harness()
        let (_, sink) = h.viewer()
        let first = try #require(sink.messages.first)
        #expect(first["type"] as? String == "snapshot")
        #expect(first["room"] as? String == "demo")
        #expect(first["viewers"] as? Int == 1)
        let scene = try #require(first["scene"] as? [String: Any])
        let sections = try #require(scene["sections"] as? [[String: Any]])
        #expect(sections.count == 2)
        #expect((sections[1]["rows"] as? [Int])?.first == 20)
        #expect(first["frame"] is [String: Any])
        #expect(sink.messages.count == 1)
    }

    @Test func idleRoomSendsNothing() {
        let h = Harness()
        let (_, a) = h.viewer()
        let (_, b) = h.viewer()
        a.clear(); b.clear()
        h.tick(120)
        #expect(a.received.isEmpty)
        #expect(b.received.isEmpty)
        #expect(h.registry.nextTickDeadline == nil, "an idle room asks for no timer")
    }

    @Test func inputGetsAFrameAtOnceAndEveryViewerGetsTheSameMessage() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        let (_, b) = h.viewer()
        let (_, other) = h.viewer(joining: "elsewhere")
        a.clear(); b.clear(); other.clear()

        h.input(1, t: 100, "wheel", #""dx":0,"dy":40,"mode":"pixel""#, from: driver)

        let frameA = try #require(a.received.last)
        let frameB = try #require(b.received.last)
        #expect(frameA === frameB, "one encoded message is shared by all viewers of the room")
        #expect(frameA.bytes == frameB.bytes)
        let json = decodeJSON(frameA)
        #expect(json["type"] as? String == "frame")
        #expect(json["seq"] as? Int == 1)
        let input = try #require(json["input"] as? [String: Any])
        #expect(input["viewer"] as? String == "v1")
        #expect(input["id"] as? Int == 1)
        #expect(other.received.isEmpty, "a viewer of another room gets none of these frames")
    }

    @Test func inputFramesAreAtLeastHalfAPeriodApartAndTheLastInputWaitsAtMostThat() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        a.clear()
        let room = try #require(h.registry.room(named: "demo"))
        let half = h.limits.tickMilliseconds / 2
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: driver)
        let firstFrameAt = room.now
        h.input(2, t: 4, "pointerMove", #""x":100,"y":390"#, from: driver)
        h.clock.advance(by: half - 2)
        h.input(3, t: 8, "pointerMove", #""x":100,"y":380"#, from: driver)
        #expect(a.messages(ofType: "frame").count == 1, "inputs within half a period of a frame wait")
        #expect(room.nextTickDue == firstFrameAt + half, "the waiting frame is due half a period after the last")

        h.registry.tick()
        #expect(a.messages(ofType: "frame").count == 1, "a tick before it is due sends nothing")
        h.clock.advance(by: 2)
        h.registry.tick()
        let frames = a.messages(ofType: "frame")
        #expect(frames.count == 2)
        #expect((frames.last?["input"] as? [String: Any])?["id"] as? Int == 3, "the waiting frame names the last input")
        #expect(frames.last?["seq"] as? Int == 2)
        // The indicator may still be fading in, so the room may animate; if it does, the next
        // frame is on the common grid, at least half a period after this one.
        #expect((room.nextTickDue ?? .infinity) >= room.now + half - 0.001)

        h.clock.advance(by: half)
        h.input(4, t: 30, "pointerMove", #""x":100,"y":370"#, from: driver)
        #expect(a.messages(ofType: "frame").count == 3, "input half a period after the last frame goes out at once")
    }

    @Test func inputFasterThanTheFrameRateGetsFramesAtTwiceItAtMost() throws {
        // Input every 5 ms for a second: frames follow the input, but never closer than half
        // a period, and none waits longer than that.
        let h = Harness()
        let (driver, a) = h.viewer()
        a.clear()
        let room = try #require(h.registry.room(named: "demo"))
        let half = h.limits.tickMilliseconds / 2
        h.input(1, t: 0, "pointerDown", #""x":100,"y":700"#, from: driver)
        var frameTimes = [room.now]
        var waitingSince: Double?
        var longestWait = 0.0
        for step in 1...200 {
            // The server's timer fires when the room asks (here, to the 0.5 ms).
            for _ in 0..<10 {
                h.clock.advance(by: 0.5)
                if let due = room.nextTickDue, room.now >= due {
                    let before = a.messages(ofType: "frame").count
                    h.registry.tick()
                    if a.messages(ofType: "frame").count > before {
                        frameTimes.append(room.now)
                        if let since = waitingSince { longestWait = max(longestWait, room.now - since) }
                        waitingSince = nil
                    }
                }
            }
            let before = a.messages(ofType: "frame").count
            h.input(UInt64(step + 1), t: Double(5 * step), "pointerMove", #""x":100,"y":\#(700 - step)"#, from: driver)
            if a.messages(ofType: "frame").count > before { frameTimes.append(room.now) } else if waitingSince == nil { waitingSince = room.now }
        }
        let gaps = zip(frameTimes.dropFirst(), frameTimes).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= half - 0.001 }, "frames are never closer than half a period")
        #expect(longestWait <= half + 0.5 + 0.001, "no input waits longer than half a period (plus the timer's step)")
        #expect(frameTimes.count >= 100, "frames follow input faster than the frame rate")
        #expect(frameTimes.count <= 121, "but at most twice the frame rate")
    }

    @Test func lateJoinerGetsSnapshotOfLatestFrameThenTheSameFrames() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: driver)
        h.tick()
        h.input(2, t: 20, "pointerMove", #""x":100,"y":300"#, from: driver)
        let lastSeq = try #require(a.messages(ofType: "frame").last?["seq"] as? Int)
        let lastOffset = try #require(a.messages(ofType: "frame").last?["offset"] as? Double)

        let (_, late) = h.viewer()
        let snapshot = try #require(late.messages.first)
        #expect(snapshot["type"] as? String == "snapshot")
        let frame = try #require(snapshot["frame"] as? [String: Any])
        #expect(frame["seq"] as? Int == lastSeq)
        #expect(frame["offset"] as? Double == lastOffset)
        #expect(snapshot["driver"] as? String == "v1")

        a.clear(); late.clear()
        h.tick()
        h.input(3, t: 40, "pointerMove", #""x":100,"y":250"#, from: driver)
        let aFrames = a.received.filter { decodeJSON($0)["type"] as? String == "frame" }
        let lateFrames = late.received.filter { decodeJSON($0)["type"] as? String == "frame" }
        #expect(!aFrames.isEmpty)
        #expect(aFrames.map(\.bytes) == lateFrames.map(\.bytes))
        #expect(decodeJSON(lateFrames[0])["seq"] as? Int == lastSeq + 1)
    }

    @Test func slowViewerSkipsFramesAndTheSkipsAreCounted() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        let (_, slow) = h.viewer()
        slow.isSlow = true
        h.input(1, t: 0, "pointerDown", #""x":100,"y":400"#, from: driver)
        for i in 0..<5 {
            h.tick()
            h.input(UInt64(i + 2), t: Double(20 * (i + 1)), "pointerMove", #""x":100,"y":\#(380 - 10 * i)"#, from: driver)
        }
        let sent = a.messages(ofType: "frame").count
        #expect(sent >= 5)
        #expect(h.metric(ServerMetrics.Name.framesSkipped) == Double(sent - 1))
        #expect(h.metric(ServerMetrics.Name.framesSent) == Double(2 * sent))
    }

    @Test func animatingRoomSendsAFramePerTickUntilItSettlesThenNothing() throws {
        let h = Harness()
        let (driver, a) = h.viewer()
        a.clear()
        // A quick fling: the engine decelerates for a while after pointerUp.
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver)
        for i in 1...5 {
            h.tick()
            h.input(UInt64(i + 1), t: Double(16 * i), "pointerMove", #""x":100,"y":\#(600 - 40 * i)"#, from: driver)
        }
        h.tick()
        h.input(7, t: 96, "pointerUp", #""x":100,"y":400"#, from: driver)
        var ticks = 0
        var animatingFrames = 0
        while ticks < 5000, let last = a.received.last.map(decodeJSON), last["animating"] as? Bool != false {
            if last["type"] as? String == "frame" { animatingFrames += 1 }
            let before = a.received.count
            h.tick()
            #expect(a.received.count - before <= 1, "at most one frame per tick")
            ticks += 1
        }
        #expect(animatingFrames > 10, "a fling animates for a while")
        #expect(ticks >= animatingFrames, "an animating room sends one frame per period, not more")
        #expect(a.received.last.map(decodeJSON)?["animating"] as? Bool == false)
        a.clear()
        h.tick(60)
        #expect(a.received.isEmpty, "a settled room sends nothing")
    }
}
