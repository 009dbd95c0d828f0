import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// Protocol version 2 in the room layer: a connection's subprotocol picks its version, each frame
/// is encoded once per version in use, texts reach version-2 viewers before the frames that need
/// them, and viewers of both versions see the same motion.
@Suite("Wire version 2 in rooms")
@RoomActor struct WireV2Tests {
    /// The frames in `messages`, by seq.
    static func frames(_ messages: [ServerMessage]) -> [UInt64: FrameMessage] {
        var frames: [UInt64: FrameMessage] = [:]
        for message in messages {
            switch message {
            case .frame(let f): frames[f.seq] = f
            case .snapshot(let s): frames[s.frame.seq] = s.frame
            default: break
            }
        }
        return frames
    }

    /// Ticks until the room has nothing more to send.
    static func runToRest(_ h: Harness, room: String = "demo", limit: Int = 2000) throws {
        let room = try #require(h.registry.room(named: room))
        var ticks = 0
        while room.nextTickDue != nil, ticks < limit {
            h.tick()
            ticks += 1
        }
        #expect(room.nextTickDue == nil, "the room came to rest")
    }

    /// 3000 demo rows, so a fling passes many rows whose texts are new.
    static func demoHarness() -> Harness { Harness(scene: { DemoScene.configuration() }) }

    @Test func theSubprotocolPicksTheVersion() throws {
        let h = Harness()
        for (subprotocol, binary) in [("scrollcast.v2", true), ("scrollcast.v1", false), (nil, false)] as [(String?, Bool)] {
            let sink = RecordingViewerSink()
            let id = ViewerID(rawValue: 1000 + UInt64(binary ? 1 : 0) + (subprotocol == nil ? 2 : 0))
            h.service.opened(id, sink: sink, subprotocol: subprotocol)
            h.send(#"{"type":"join","room":"demo"}"#, from: id)
            let first = try #require(sink.received.first)
            #expect(first.kind == (binary ? .binary : .text), "\(subprotocol ?? "none")")
        }
    }

    @Test func v1AndV2ViewersOfOneRoomSeeTheSameFramesAndMessages() throws {
        let h = Self.demoHarness()
        let (driver, v1) = h.viewer()
        let (_, v2) = h.viewer(version: .v2)
        h.fling(by: driver, steps: 8, interval: 16, stride: 30)
        try Self.runToRest(h)
        let old = try v1.v1Messages()
        let new = try v2.v2Common()
        // The v2 viewer joined second: it misses the v1 viewer's snapshot only.
        guard case .snapshot(var s1) = old[0], case .snapshot(let s2) = new[0] else {
            Issue.record("snapshots first"); return
        }
        #expect(s2.viewer == "v2" && s2.protocolVersion == 2)
        s1.viewer = "v2"; s1.viewers = 2; s1.protocolVersion = 2
        #expect(s1.scene == s2.scene)
        let frames1 = Self.frames(Array(old.dropFirst())), frames2 = Self.frames(Array(new.dropFirst()))
        #expect(frames1.count > 30, "the fling lasted a while")
        #expect(frames1 == frames2, "the same frame for every seq")
        let others1 = old.dropFirst().filter { if case .frame = $0 { false } else { true } }
        let others2 = new.dropFirst().filter { if case .frame = $0 { false } else { true } }
        // The v1 viewer also heard of the v2 viewer's join (a joiner hears nothing of its own).
        #expect(others1.first == .presence(viewers: 2, driver: nil, locked: false))
        #expect(Array(others1.dropFirst()) == Array(others2), "presence alike")
        #expect(!others2.isEmpty)
    }

    @Test func eachFrameIsEncodedOncePerVersionAndSharedByItsViewers() throws {
        let h = Harness()
        let (driver, a) = h.viewer(version: .v2)
        let (_, b) = h.viewer(version: .v2)
        let (_, c) = h.viewer()
        a.clear(); b.clear(); c.clear()
        h.input(1, t: 100, "wheel", #""dx":0,"dy":40,"mode":"pixel""#, from: driver)
        let frameA = try #require(a.received.last), frameB = try #require(b.received.last), frameC = try #require(c.received.last)
        #expect(frameA === frameB)
        #expect(frameA.kind == .binary && frameC.kind == .text)
        #expect(frameA.count * 5 < frameC.count)
    }

    @Test func aRoomWithoutV2ViewersKeepsNoTextsAndAV2JoinerStillGetsWhatItNeeds() throws {
        let h = Self.demoHarness()
        let (driver, v1) = h.viewer()
        h.fling(by: driver, steps: 6, interval: 16, stride: 40)
        h.tick(10)
        let room = try #require(h.registry.room(named: "demo"))
        #expect(room.wireTexts.all.isEmpty, "nothing registered while only v1 viewers watch")
        let (joiner, v2) = h.viewer(version: .v2)
        #expect(!room.wireTexts.all.rows.isEmpty)
        try Self.runToRest(h)
        let frames1 = Self.frames(try v1.v1Messages())
        let frames2 = Self.frames(try v2.v2Common())
        #expect(!frames2.isEmpty)
        for (seq, frame) in frames2 { #expect(frames1[seq] == frame) }
        h.service.closed(joiner)
        // The table outlives the last v2 viewer, for its resume; a v2 viewer joining afresh alone
        // starts a new one, as it always did.
        #expect(!room.wireTexts.all.isEmpty, "kept for a resume")
        let (_, fresh) = h.viewer(version: .v2)
        #expect(room.history.records.contains { $0.entry == .textsReset })
        #expect(try fresh.v2Messages().count == 1, "a snapshot, no texts before it")
    }

    @Test func textsGoOutOnceAndBeforeTheFirstFrameThatShowsThem() throws {
        let h = Self.demoHarness()
        let (driver, v2) = h.viewer(version: .v2)
        h.fling(by: driver, steps: 10, interval: 16, stride: 60)
        try Self.runToRest(h)
        // Decoding in order fails on a frame whose texts have not arrived: so none did.
        let messages = try v2.v2Messages()
        var sentRows: [Int] = []
        for message in messages {
            switch message {
            case .texts(let t): sentRows += t.rows.map(\.id)
            case .message(.snapshot(let s)): sentRows += s.frame.rows.map(\.id)
            default: break
            }
        }
        #expect(Set(sentRows).count == sentRows.count, "no row's texts are sent twice")
        #expect(sentRows.count > 25, "the fling passed many rows")
        #expect(messages.contains { if case .texts = $0 { true } else { false } })
    }

    /// A stalled viewer's reliable queue is bounded (256 messages, then it is closed): texts must
    /// not come with nearly every frame. Rows ahead of the visible ones go along in batches.
    @Test func aLongFlingSendsTextsOnAFewFramesOnly() throws {
        let h = Self.demoHarness()
        let (driver, v2) = h.viewer(version: .v2)
        h.fling(by: driver, steps: 10, interval: 16, stride: 80)
        try Self.runToRest(h)
        let messages = try v2.v2Messages()
        let texts = messages.filter { if case .texts = $0 { true } else { false } }.count
        let frames = messages.filter { if case .message(.frame) = $0 { true } else { false } }.count
        let shown = Set(messages.flatMap { message -> [Int] in
            if case .message(.frame(let f)) = message { return f.rows.map(\.id) }
            return []
        })
        #expect(shown.count > 40, "the fling passed many rows: \(shown.count)")
        #expect(texts * 10 < frames, "\(texts) texts messages for \(frames) frames")
    }

    @Test func aLateV2JoinerDrawsEveryLaterFrame() throws {
        let h = Self.demoHarness()
        let (driver, early) = h.viewer(version: .v2)
        h.fling(by: driver, steps: 10, interval: 16, stride: 60)
        h.tick(20)
        let (_, late) = h.viewer(version: .v2)
        try Self.runToRest(h)
        let earlyFrames = Self.frames(try early.v2Common())
        let lateFrames = Self.frames(try late.v2Common())
        #expect(lateFrames.count > 5)
        for (seq, frame) in lateFrames { #expect(earlyFrames[seq] == frame) }
        let room = try #require(h.registry.room(named: "demo"))
        guard case .message(.snapshot) = try late.v2Messages().first else { Issue.record("snapshot first"); return }
        var decoder = ServerMessageDecoderV2()
        _ = try decoder.decode(late.received[0].bytes)
        #expect(decoder.texts.all.rows.count >= room.wireTexts.all.rows.count - 20,
                "the snapshot held the room's whole table (rows since are in texts messages)")
    }

    @Test func aSlowV2ViewerThatSkipsFramesDrawsTheLatestExactly() throws {
        let h = Self.demoHarness()
        let (driver, fast) = h.viewer()
        let (_, slow) = h.viewer(version: .v2)
        slow.isSlow = true
        h.input(1, t: 0, "pointerDown", #""x":100,"y":700"#, from: driver)
        for step in 1...12 {
            h.scheduler.advance(by: 16)
            h.input(UInt64(1 + step), t: Double(step) * 16, "pointerMove", #""x":100,"y":\#(700 - step * 50)"#, from: driver)
            if step % 4 == 0 { slow.flush() }
        }
        h.scheduler.advance(by: 16)
        h.input(14, t: 13 * 16, "pointerUp", #""x":100,"y":80"#, from: driver)
        var ticks = 0
        let room = try #require(h.registry.room(named: "demo"))
        while room.nextTickDue != nil, ticks < 2000 {
            h.tick()
            ticks += 1
            if ticks % 7 == 0 { slow.flush() }
        }
        slow.flush()
        let fastFrames = Self.frames(try fast.v1Messages())
        let slowFrames = Self.frames(try slow.v2Common())
        #expect(slowFrames.count < fastFrames.count / 3, "the slow viewer skipped most frames")
        #expect(slowFrames.count > 5)
        for (seq, frame) in slowFrames { #expect(fastFrames[seq] == frame, "seq \(seq)") }
        #expect(slowFrames[fastFrames.keys.max()!] != nil, "the last frame reached it")
    }

    @Test func rowMovesAndRefusalsReachV2ViewersInBinary() throws {
        let h = Harness()
        let (driver, watcher) = h.viewer()
        let (v2ID, v2) = h.viewer(version: .v2)
        let (rowID, lifted) = try h.dragRowDown(by: driver, watchedBy: watcher)
        #expect(lifted)
        h.tick(60)
        h.input(100, t: 10_000, "pointerDown", #""x":150,"y":500"#, from: driver)
        h.input(1, t: 5, "wheel", #""dx":0,"dy":40,"mode":"pixel""#, from: v2ID)
        let messages = try v2.v2Common()
        #expect(messages.last == .refused(input: 1, code: "driving", reason: "v1 is driving; try again when the gesture ends"))
        let moved = messages.compactMap { if case .rowMoved(let m) = $0 { m } else { nil } }
        #expect(moved.map(\.rowID) == [rowID] && moved.first?.by == "v1")
        #expect(messages.contains { if case .frame(let f) = $0 { f.lifted?.row.id == rowID } else { false } })
        #expect(try watcher.v1Messages().contains(.rowMoved(moved[0])))
    }

    @Test func protocolErrorsReachV2ViewersInBinary() throws {
        let h = Harness()
        let (id, sink) = h.viewer(version: .v2)
        h.send(#"{"type":"input","id":1,"t":0,"kind":"pointerDown","x":"a","y":1}"#, from: id)
        guard case .message(.error(let message)) = try sink.v2Messages().last else { Issue.record("an error last"); return }
        #expect(message == "field 'x' must be a finite number")
        #expect(sink.closedWith?.code == .policyViolation)

        let (other, otherSink) = h.viewer(version: .v2)
        h.service.receivedBinary(from: other)
        guard case .message(.error(let binary)) = try otherSink.v2Messages().last else { Issue.record("an error last"); return }
        #expect(binary == "binary messages are not part of scrollcast.v2 from clients; send JSON text")
        #expect(otherSink.closedWith?.code == .unsupportedData)
    }
}
