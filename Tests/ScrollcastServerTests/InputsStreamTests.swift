import Testing
import ScrollEngine
import ScrollWire
import ScrollReplica
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// The inputs stream (docs/protocol.md, "The inputs stream"), on the manual clock: a native
/// replica started from the snapshot's state bytes and fed only the batches reproduces the room's
/// frame hash at every beat, mid-fling joiners included; keyframes, the move back to frames,
/// refusals, resumes, and a room whose viewers all take inputs encodes no frame.
@Suite("Inputs stream")
@RoomActor struct InputsStreamTests {
    static let joinsInputs = #","stream":"inputs","engine":1"#

    /// What a viewer of the inputs stream does with its messages: a replica restored from each
    /// snapshot's `replica`, the batches applied in order, every beat's hash checked.
    @RoomActor struct StreamClient {
        var replica: EngineReplica?
        var changes: UInt64 = 0
        var beatsChecked = 0
        var batches = 0
        var frames = 0
        var snapshots = 0
        var problems: [String] = []

        mutating func read(_ message: ServerMessage) throws {
            switch message {
            case .snapshot(let s):
                snapshots += 1
                guard let start = s.replica else { replica = nil; return }
                var fresh = try #require(try replica(of: s.sceneName))
                try fresh.restore(state: start.state)
                fresh.nameInput(start.input)
                replica = fresh
                changes = start.changes
            case .resumed(let r):
                if r.from != changes { problems.append("resumed from \(r.from), holding \(changes)") }
            case .batch(let b):
                batches += 1
                guard b.firstChange == changes + 1 else { return problems.append("batch from \(b.firstChange) after \(changes)") }
                for entry in b.applied {
                    if case .rejected(let why) = replica?.apply(entry) { problems.append("change refused: \(why)") }
                }
                changes = b.changes
            case .beat(let beat):
                guard let hash = beat.hash, let replica else { return }
                let mine = replica.frameHash(at: beat.time)
                if mine != hash { problems.append("beat at \(beat.time): \(HashText.hex(mine)) ≠ room's \(HashText.hex(hash))") }
                beatsChecked += 1
            case .frame:
                frames += 1
            default: break
            }
        }

        /// Where a scene not built into the replica comes from (as `GET /scenes/NAME` serves it).
        var scenes: SceneCatalogue?
        /// Builds such a scene with its sections in reverse order: a wrong base (a known-bad case).
        var baseReordered = false

        /// A replica of `name`: a built-in scene by name, else the scene's bytes from the route.
        func replica(of name: String) throws -> EngineReplica? {
            guard let scenes else { return EngineReplica(sceneNamed: name) }
            let reply = try #require(SceneBytesRoute.reply(path: SceneBytesRoute.prefix + name, scenes: scenes))
            var configuration = try SceneBytes.decode(reply.body)
            if baseReordered { configuration.sections.reverse() }
            return EngineReplica(sceneNamed: name, configuration: configuration)
        }

        static func following(_ sink: RecordingViewerSink, _ version: WireVersion) throws -> StreamClient {
            var client = StreamClient()
            for message in try decoded(sink, version) { try client.read(message) }
            return client
        }
    }

    static func decoded(_ sink: RecordingViewerSink, _ version: WireVersion) throws -> [ServerMessage] {
        try CompleteHistoryTests.decoded(sink, version)
    }

    /// The demo room with a driver on frames and a viewer of the inputs stream (version 1), after
    /// the driver's fling of `steps` moves and `ticks` frame periods.
    static func flung(steps: Int, ticks: Int) -> (h: Harness, driver: ViewerID, stream: ViewerID, sink: RecordingViewerSink) {
        let h = WireV2Tests.demoHarness()
        let (driver, _) = h.viewer()
        let (stream, sink) = h.viewer(extra: joinsInputs)
        h.fling(by: driver, steps: steps, interval: 16, stride: 40)
        h.tick(ticks)
        return (h, driver, stream, sink)
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aReplicaFromTheStateAndBatchesMatchesEveryBeatBesideAFramesViewer(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (_, frames) = h.viewer()
        let (_, stream) = h.viewer(extra: Self.joinsInputs, version: version)
        try AppliedReplicaTests.drive(h, watcher: frames)
        let client = try StreamClient.following(stream, version)
        #expect(client.problems.isEmpty, "\(client.problems.prefix(3))")
        #expect(client.beatsChecked > 20 && client.batches > 20, "\(client.beatsChecked) beats, \(client.batches) batches")
        #expect(client.frames == 0, "no frame in the inputs stream")
        #expect(try frames.v1Messages().filter { if case .frame = $0 { true } else { false } }.count > 300)
        #expect(try !Self.decoded(stream, version).contains { if case .applied = $0 { true } else { false } })
        let texts = version == .v2 ? try stream.v2Messages().filter { if case .texts = $0 { true } else { false } }.count : 0
        #expect(texts == 0, "no texts in the inputs stream")
    }

    @Test func aReplicaThatMissesABatchDisagreesWithTheNextBeat() throws {
        // The same check fed one batch less: it must fail, or the test above proves nothing.
        let stream = Self.flung(steps: 8, ticks: 120).sink
        var client = StreamClient()
        var skipped = false
        for message in try stream.v1Messages() {
            if case .batch(var b) = message, !skipped {
                skipped = true
                b.applied.removeLast()
                try client.read(.batch(b))
                continue
            }
            try client.read(message)
        }
        #expect(skipped && client.problems.contains { $0.hasPrefix("beat") }, "\(client.problems)")
    }

    @Test func batchesLeaveAtMostOncePerFramePeriodExceptBeforeABeat() throws {
        let h = WireV2Tests.demoHarness()
        let (_, stream) = h.viewer(extra: Self.joinsInputs)
        let (driver, _) = h.viewer()
        let room = try #require(h.registry.room(named: "demo"))
        // A wheel burst at 4 inputs a frame period: more changes than periods.
        let burst = WheelBurst(h, by: driver, count: 40, dy: 30, watching: stream, in: room)
        let batches = burst.batches
        let early = burst.early(within: room.pacer.framePeriod - room.pacer.timerSlack)
        #expect(batches.count >= 8 && batches.count < 40, "\(batches.count) batches for 40 changes")
        #expect(early.isEmpty, "batches within a period: \(early)")
        let client = try StreamClient.following(stream, .v1)
        #expect(client.problems.isEmpty && client.changes == 40, "\(client.problems) \(client.changes)")
    }

    @Test func aRowHeldStillBeforeItLiftsKeepsTheMarksComingAtTheBeatInterval() throws {
        // A finger down and still on a row: until it lifts (0.5 s), the room computes frames that
        // show nothing new and sends none (StillFrameTests). Its inputs viewers still get a beat,
        // and so the mark, at least every beat interval and a frame period, as while anything
        // moves; else a watcher's clock would wait at the press's mark through the hold.
        let h = WireV2Tests.demoHarness()
        let (_, stream) = h.viewer(extra: Self.joinsInputs)
        let (driver, _) = h.viewer()
        let room = try #require(h.registry.room(named: "demo"))
        var marks: [(at: Double, mark: Double)] = []
        func note(_ act: () -> Void) {
            let seen = stream.received.count
            act()
            for message in stream.received.dropFirst(seen) {
                if let mark = decodeJSON(message)["complete"] as? Double { marks.append((room.now, mark)) }
            }
        }
        note { h.input(1, t: 0, "pointerDown", #""x":150,"y":400"#, from: driver) }   // its batch, its frame's beat
        let start = room.now
        let sequence = room.sequence
        while room.now < start + 480 { note { h.scheduler.advance(by: 4) } }
        let bound = InputsStreamState.beatInterval + room.pacer.framePeriod + room.pacer.timerSlack
        let gaps = zip(marks, marks.dropFirst()).map { $1.at - $0.at }
        #expect(room.sequence == sequence, "the hold showed nothing new: \(room.sequence - sequence) frames")
        #expect(marks.count >= 3 && marks[0].at == start && (marks.last?.at ?? 0) > start + 480 - bound, "\(marks)")
        #expect(gaps.allSatisfy { $0 <= bound }, "gaps \(gaps)")
        #expect(zip(marks, marks.dropFirst()).allSatisfy { $1.mark >= $0.mark } && marks.last!.mark > marks[0].mark, "\(marks)")
        let client = try StreamClient.following(stream, .v1)
        #expect(client.problems.isEmpty && client.beatsChecked >= 3, "\(client.problems) \(client.beatsChecked)")
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aLateJoinerMidFlingIsRightFromItsFirstFrame(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (_, frames) = h.viewer()
        let (driver, _) = h.viewer()
        h.fling(by: driver, steps: 8, interval: 16, stride: 45)
        h.tick(12)  // mid-fling
        let (_, stream) = h.viewer(extra: Self.joinsInputs, version: version)
        let joinedAt = frames.received.count
        h.tick(200)
        var client = StreamClient()
        let messages = try Self.decoded(stream, version)
        try client.read(messages[0])
        let start = try #require({ if case .snapshot(let s) = messages[0] { s.replica } else { nil } }())
        var replica = try #require(client.replica)
        // Every frame the room sent after the join, computed by the replica from the state alone
        // (nobody drove since): the same bytes, from the first.
        let later = try frames.v1Messages().dropFirst(joinedAt).compactMap { if case .frame(let f) = $0 { f } else { nil } }
        #expect(later.count > 30 && later.first?.animating == true, "\(later.count) frames, mid-fling")
        for f in later {
            #expect(f.time >= start.time)
            var frame = replica.scene.frame(at: f.time)
            frame.sequence = f.seq
            #expect(ServerMessageEncoder.frame(frame, input: replica.lastApplied, sentAt: f.sentAt)
                    == ServerMessageEncoder.frame(f.effectFrame(insets: .zero), input: f.input, sentAt: f.sentAt), "seq \(f.seq)")
        }
        replica.nameInput(nil)  // a replica naming the wrong input disagrees at once
        var wrong = replica.scene.frame(at: later[0].time)
        wrong.sequence = later[0].seq
        #expect(ServerMessageEncoder.frame(wrong, input: nil, sentAt: later[0].sentAt)
                != ServerMessageEncoder.frame(later[0].effectFrame(insets: .zero), input: later[0].input, sentAt: later[0].sentAt))
        for message in messages.dropFirst() { try client.read(message) }
        #expect(client.problems.isEmpty && client.beatsChecked >= 3, "\(client.problems) \(client.beatsChecked)")
    }

    @Test func aKeyframeIsAFreshStateAndTheThirdWithinAMinuteMovesTheViewerToFrames() throws {
        let (h, _, stream, sink) = Self.flung(steps: 6, ticks: 10)
        h.send(#"{"type":"keyframe"}"#, from: stream)
        h.tick(30)
        var messages = try sink.v1Messages()
        let snapshots = messages.compactMap { if case .snapshot(let s) = $0 { s } else { nil } }
        #expect(snapshots.count == 2 && snapshots.allSatisfy { $0.replica != nil })
        #expect(snapshots[1].viewer == snapshots[0].viewer && snapshots[1].replica!.changes == 8)
        #expect(h.metric(ServerMetrics.Name.keyframes) == 1 && h.metric(ServerMetrics.Name.inputsStreamFallbacks) == 0)
        var client = try StreamClient.following(sink, .v1)
        #expect(client.problems.isEmpty && client.frames == 0, "\(client.problems)")
        h.scheduler.advance(by: 1000)
        h.send(#"{"type":"keyframe"}"#, from: stream)
        h.send(#"{"type":"keyframe"}"#, from: stream)
        let (second, _) = h.viewer()
        h.fling(by: second, steps: 6, interval: 16, stride: -40)
        h.tick(30)
        messages = try sink.v1Messages()
        let last = try #require(messages.compactMap { if case .snapshot(let s) = $0 { s } else { nil } }.last)
        #expect(last.replica == nil, "moved to frames")
        #expect(h.metric(ServerMetrics.Name.keyframes) == 2 && h.metric(ServerMetrics.Name.inputsStreamFallbacks) == 1)
        client = try StreamClient.following(sink, .v1)
        #expect(client.frames > 10, "frames after the move: \(client.frames)")
        #expect(messages.contains { if case .applied(let a) = $0 { a.complete != nil } else { false } })
        // From a viewer of the frames stream, a keyframe is a protocol error.
        h.send(#"{"type":"keyframe"}"#, from: stream)
        #expect(sink.closedWith?.code == .policyViolation && sink.closedWith?.reason == "'keyframe' needs the inputs stream")
    }

    @Test(arguments: [("999", "got 999"), ("null", "got none")])
    func anotherEngineVersionIsRefusedWith4100(engine: String, got: String) throws {
        let h = WireV2Tests.demoHarness()
        let (_, sink) = h.viewer(extra: #","stream":"inputs","engine":\#(engine)"#)
        #expect(sink.closedWith == CloseReason(.engineNotServed, "stream 'inputs' needs engine \(EngineVersion.current); \(got)"))
        #expect(try sink.v1Messages() == [.error("stream 'inputs' needs engine \(EngineVersion.current); \(got)")])
        #expect(h.registry.room(named: "demo") == nil, "no room was made for it")
        let (_, served) = h.viewer(extra: Self.joinsInputs)
        #expect(served.closedWith == nil)
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aSceneNoReplicaHasBuiltInIsServedFromItsSceneBytes(version: WireVersion) throws {
        // A file or uploaded scene (here "feed": uneven rows, none built into a replica) whose
        // room moved a row before the stream's viewer joined: the state's row order is relative
        // to the scene `GET /scenes/feed` serves, which the client builds, as the page does.
        let scenes = SceneCatalogue(entries: [.init(name: "demo", build: { DemoScene.configuration() }),
                                              .init(name: "feed", build: Self.feedScene)], defaultName: "demo")
        let h = Harness(scenes: scenes)
        let (mover, moverSink) = h.viewer(joining: "f", extra: #","scene":"feed""#)
        let (rowID, lifted) = try h.dragRowDown(by: mover, watchedBy: moverSink)
        h.tick(60)
        let room = try #require(h.registry.room(named: "f"))
        #expect(lifted && room.rowMoveVersion == 1, "row \(rowID) moved")
        let (_, stream) = h.viewer(joining: "f", extra: Self.joinsInputs, version: version)
        #expect(stream.closedWith == nil)
        let (driver, _) = h.viewer(joining: "f")
        h.fling(by: driver, steps: 6, interval: 16, stride: 40)
        h.tick(240)
        var client = StreamClient()
        client.scenes = scenes
        for message in try Self.decoded(stream, version) { try client.read(message) }
        #expect(client.problems.isEmpty, "\(client.problems.prefix(3))")
        #expect(client.snapshots == 1 && client.beatsChecked > 10 && client.frames == 0,
                "\(client.snapshots) snapshots, \(client.beatsChecked) beats")
        // The known-bad case: the same stream read against the scene in its first order (the
        // base a replica would take without the catalogue's scene) is refused or disagrees.
        var wrong = StreamClient()
        wrong.scenes = scenes
        wrong.baseReordered = true
        var noticed: Bool
        do {
            for message in try Self.decoded(stream, version) { try wrong.read(message) }
            noticed = !wrong.problems.isEmpty
        } catch {
            noticed = true   // the state's row order does not fit that base
        }
        #expect(noticed, "a reordered base went unnoticed")
    }

    /// Rows of uneven heights in three sections, unlike any built-in scene.
    nonisolated static func feedScene() -> SceneConfiguration {
        SceneConfiguration(sections: (0..<3).map { s in
            TableSection(title: "Day \(s)", rows: (0..<12).map { r in
                TableRow(id: s * 12 + r, title: "Post \(s * 12 + r)", group: "D\(s)", detail: "\(r)", height: Double(56 + (r * 37) % 90))
            })
        })
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aResumeInTheInputsStreamSendsTheMissedChangesNotFrames(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (_, frames) = h.viewer()
        let (driver, _) = h.viewer()
        let (first, firstSink) = h.viewer(extra: Self.joinsInputs + #","resumable":true"#, version: version)
        h.fling(by: driver, steps: 6, interval: 16, stride: 40)
        h.tick(20)
        var client = try StreamClient.following(firstSink, version)
        let life = try #require(try Self.decoded(firstSink, version).compactMap { if case .snapshot(let s) = $0 { s.resumePoint?.life } else { nil } }.first)
        h.service.closed(first)
        let (wheeler, _) = h.viewer()
        for i in 0..<5 { h.input(UInt64(1 + i), t: Double(i) * 16, "wheel", #""dx":0,"dy":60,"mode":"pixel""#, from: wheeler); h.tick() }
        let resume = #","resume":{"life":\#(life),"seq":\#(client.changes),"moves":0}"#
        let (_, again) = h.viewer(extra: Self.joinsInputs + resume, version: version)
        h.tick(100)
        let messages = try Self.decoded(again, version)
        guard case .resumed(let resumed) = messages.first else { Issue.record("\(messages.first.map { "\($0)" } ?? "nothing")"); return }
        #expect(resumed.from == client.changes && resumed.seq == client.changes + 5)
        guard case .batch(let missed) = messages[1] else { Issue.record("then \(messages[1])"); return }
        #expect(missed.applied.count == 5 && missed.changes == resumed.seq)
        #expect(!messages.contains { if case .snapshot = $0 { true } else if case .frame = $0 { true } else { false } })
        for message in messages { try client.read(message) }
        #expect(client.problems.isEmpty && client.beatsChecked >= 2, "\(client.problems) \(client.beatsChecked)")
        #expect(frames.closedWith == nil)
        // A resume naming changes the room never made gets a snapshot with the state.
        let (_, beyond) = h.viewer(extra: Self.joinsInputs + #","resume":{"life":\#(life),"seq":999,"moves":0}"#, version: version)
        guard case .snapshot(let s) = try Self.decoded(beyond, version).first else { Issue.record("no snapshot"); return }
        #expect(s.replica?.changes == resumed.seq)
    }

    /// A store that reads rooms later, as one reading on another thread does.
    final class LateLoadingStore: RoomStore {
        let inner = InMemoryRoomStore()
        var loads: [() -> Void] = []
        func loadRoom(named name: String) throws(RoomStoreError) -> StoredRoom? { try inner.loadRoom(named: name) }
        func loadRoom(named name: String, completion: @escaping (Result<StoredRoom?, RoomStoreError>) -> Void) {
            loads.append { [inner] in inner.loadRoom(named: name, completion: completion) }
        }
        func roomCreated(_ settings: RoomSettings) { inner.roomCreated(settings) }
        func append(_ entry: RoomLogEntry, toRoom room: String) { inner.append(entry, toRoom: room) }
        func commitRowMove(_ move: RowMoveRecord, completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
            inner.commitRowMove(move, completion: completion)
        }
        func roomEvicted(named name: String) { inner.roomEvicted(named: name) }
    }

    @Test func aKeyframeReachesARoomTheStoreWasStillReadingAtTheJoin() throws {
        let store = LateLoadingStore()
        let h = Harness(scene: { DemoScene.configuration() }, store: store)
        let (stream, sink) = h.viewer(extra: Self.joinsInputs)
        #expect(sink.received.isEmpty, "the room is still being read")
        for load in store.loads { load() }
        h.send(#"{"type":"keyframe"}"#, from: stream)
        let snapshots = try sink.v1Messages().filter { if case .snapshot(let s) = $0 { s.replica != nil } else { false } }
        #expect(snapshots.count == 2 && sink.closedWith == nil, "\(sink.closedWith.map { "\($0)" } ?? "")")
    }

    @Test func aRoomWhoseViewersAllTakeInputsEncodesNoFrameButStillComputesThem() throws {
        let h = WireV2Tests.demoHarness()
        let (driver, driverSink) = h.viewer(extra: Self.joinsInputs)
        let (_, other) = h.viewer(extra: Self.joinsInputs, version: .v2)
        h.fling(by: driver, steps: 8, interval: 16, stride: 40)
        h.tick(150)
        let room = try #require(h.registry.room(named: "demo"))
        #expect(room.sequence > 30, "the room computed its frames: \(room.sequence)")
        #expect(h.metric("scrollcast_frame_encode_seconds_count") ?? 0 == 0)
        #expect(h.metric(ServerMetrics.Name.framesSent) ?? 0 == 0)
        for (sink, version) in [(driverSink, WireVersion.v1), (other, .v2)] {
            let client = try StreamClient.following(sink, version)
            #expect(client.frames == 0 && client.problems.isEmpty && client.beatsChecked >= 3, "\(version): \(client)")
        }
        // A frames viewer joining makes the room encode again: the measure reads frames when there are.
        let (_, frames) = h.viewer()
        h.input(20, t: 5000, "key", #""key":"pageDown""#, from: driver)
        h.tick(60)
        #expect((h.metric("scrollcast_frame_encode_seconds_count") ?? 0) > 10)
        #expect(try frames.v1Messages().filter { if case .frame = $0 { true } else { false } }.count > 10)
        #expect(try StreamClient.following(driverSink, .v1).frames == 0)
    }
}
