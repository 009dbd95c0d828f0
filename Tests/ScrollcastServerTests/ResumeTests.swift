import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// Resuming in the room layer (docs/protocol.md, "Resuming"), in memory with the manual clock: a
/// viewer cut mid-fling, while a row moves, comes back with `resumed`, the move and the latest
/// frame, and ends with the room's order; what it cannot be sure of gets a snapshot.
@Suite("Resume")
@RoomActor struct ResumeTests {
    /// What a client keeps of a room: its order, last seq and move count, as the page does.
    struct ClientState {
        var life: UInt64 = 0
        var order: [[Int]] = []
        var seq: UInt64 = 0
        var rowMoveVersion = 0
        var lastFrame: FrameMessage?

        mutating func apply(_ message: ServerMessage) {
            switch message {
            case .snapshot(let s):
                order = s.scene.sections.map(\.rowIDs)
                seq = s.frame.seq
                lastFrame = s.frame
                life = s.resumePoint?.life ?? 0
                rowMoveVersion = s.resumePoint?.rowMoveVersion ?? 0
            case .resumed(let r):
                life = r.life
            case .frame(let f):
                seq = f.seq
                lastFrame = f
            case .rowMoved(let m):
                let id = order[m.from.section].remove(at: m.from.row)
                order[m.to.section].insert(id, at: m.to.row)
                rowMoveVersion = m.rowMoveVersion
            default:
                break
            }
        }

        var resumeJSON: String {
            #","resume":{"life":\#(life),"seq":\#(seq),"moves":\#(rowMoveVersion)}"#
        }
    }

    /// Decodes `sink`'s messages as its version does; version 2 with `decoder`, kept across
    /// connections as a resuming client keeps its texts.
    static func decode(_ sink: RecordingViewerSink, _ version: WireVersion, _ decoder: inout ServerMessageDecoderV2) throws -> [ServerMessage] {
        switch version {
        case .v1: return try sink.v1Messages()
        case .v2:
            return try sink.received.compactMap { message throws(WireError) -> ServerMessage? in
                if case .message(let m) = try decoder.decode(message.bytes) { return m }
                return nil
            }
        }
    }

    static func type(_ message: ServerMessage) -> String {
        switch message {
        case .snapshot: "snapshot"
        case .frame: "frame"
        case .rowMoved: "rowMoved"
        case .presence: "presence"
        case .refused: "refused"
        case .error: "error"
        case .resumed: "resumed"
        case .applied: "applied"
        case .beat: "beat"
        case .batch: "batch"
        case .held: "held"
        case .pong: "pong"
        case .sharing(let notice): notice.type
        }
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aViewerCutMidFlingAndMidMoveResumesWithoutASnapshot(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (driver, driverSink) = h.viewer()
        let (watcher, watcherSink) = h.viewer(extra: #","resumable":true"#, version: version)
        var decoder = ServerMessageDecoderV2()
        var client = ClientState()
        h.fling(by: driver, steps: 6, interval: 16, stride: 40)
        h.tick(4)
        for message in try Self.decode(watcherSink, version, &decoder) { client.apply(message) }
        #expect(client.life != 0 && client.rowMoveVersion == 0, "the snapshot told the life")
        let cutAt = client.seq

        h.service.closed(watcher)
        h.tick(30)   // the fling goes on without it
        let (mover, moverSink) = h.viewer()
        _ = try h.dragRowDown(by: mover, watchedBy: moverSink)
        h.tick(40)
        let moved = try moverSink.v1Messages().filter { if case .rowMoved = $0 { true } else { false } }
        #expect(moved.count == 1, "a row moved while the watcher was away")

        let (_, resumedSink) = h.viewer(extra: client.resumeJSON, version: version)
        let answer = try Self.decode(resumedSink, version, &decoder)
        #expect(answer.map(Self.type) == ["resumed", "rowMoved", "frame"])
        for message in answer { client.apply(message) }
        guard case .resumed(let resumed) = answer.first else { return }
        #expect(resumed.from == cutAt && resumed.rowMoveVersion == 1 && resumed.viewers == 3)
        #expect(resumed.seq > cutAt)
        #expect(client.seq == resumed.seq, "the latest frame")

        let (_, fresh) = h.viewer()
        guard case .snapshot(let truth)? = try fresh.v1Messages().first else { Issue.record("a snapshot"); return }
        #expect(client.order == truth.scene.sections.map(\.rowIDs), "the room's order")
        #expect(client.lastFrame?.offset == truth.frame.offset && client.lastFrame?.rows == truth.frame.rows)

        let (_, sizeProbe) = h.viewer(version: version)
        let snapshotBytes = try #require(sizeProbe.received.first).count
        let resumeBytes = resumedSink.received.reduce(0) { $0 + $1.count }
        print("resume \(version): \(resumeBytes) bytes; snapshot: \(snapshotBytes) bytes")
        #expect(Double(resumeBytes) <= 0.05 * Double(snapshotBytes))
        #expect(h.metric(ServerMetrics.Name.resumes) == 1)
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func staleOrForgedResumesGetASnapshotThatTellsTheLife(version: WireVersion) throws {
        let h = Harness()
        let (driver, _) = h.viewer()
        let (_, watcherSink) = h.viewer(extra: #","resumable":true"#, version: version)
        h.fling(by: driver, steps: 4, interval: 16, stride: 30)
        h.tick(5)
        var decoder = ServerMessageDecoderV2()
        var client = ClientState()
        for message in try Self.decode(watcherSink, version, &decoder) { client.apply(message) }
        let life = client.life
        let forged = [
            #","resume":{"life":\#(life == 1 ? 2 : life - 1),"seq":\#(client.seq),"moves":0}"#,   // another life
            #","resume":{"life":\#(life),"seq":\#(client.seq + 1000),"moves":0}"#,            // a seq never sent
            #","resume":{"life":\#(life),"seq":\#(client.seq),"moves":5}"#,                   // moves never made
        ]
        for extra in forged {
            let (_, sink) = h.viewer(extra: extra, version: version)
            var fresh = ServerMessageDecoderV2()
            guard case .snapshot(let snapshot)? = try Self.decode(sink, version, &fresh).first else {
                Issue.record("a snapshot for \(extra)"); continue
            }
            #expect(snapshot.resumePoint == ResumePoint(life: life, rowMoveVersion: 0))
        }
        #expect(h.metric(ServerMetrics.Name.resumesRefused) == 3)
    }

    @Test func aViewerThatNeverAsksIsToldNothingNew() throws {
        let h = Harness()
        let (_, v1) = h.viewer()
        let (_, v2) = h.viewer(version: .v2)
        #expect(v1.messages.first?["life"] == nil && v1.messages.first?["moves"] == nil)
        let flags = try #require(v2.received.first?.bytes[11 ... 11].first)
        #expect(flags & 0x10 == 0, "no resume point in a version-2 snapshot")
        guard case .snapshot(let s)? = try v2.v2Common().first else { Issue.record("a snapshot"); return }
        #expect(s.resumePoint == nil)
    }

    @Test func malformedResumesAreRefusedLikeAnyBadJoin() {
        let h = Harness()
        let bad = [
            (#","resume":5"#, "field 'resume' must be an object"),
            (#","resume":{"life":0,"seq":1,"moves":0}"#, "field 'resume.life' must be an integer in 1…9007199254740991"),
            (#","resume":{"life":3,"moves":0}"#, "missing field 'resume.seq'"),
            (#","resume":{"life":3,"seq":-1,"moves":0}"#, "field 'resume.seq' must be an integer in 0…9007199254740991"),
            (#","resume":{"life":3,"seq":1,"moves":1.5}"#, "field 'resume.moves' must be an integer in 0…9007199254740991"),
            (#","resumable":"yes""#, "field 'resumable' must be true or false"),
        ]
        for (extra, error) in bad {
            let (_, sink) = h.viewer(extra: extra)
            #expect(sink.messages.first?["message"] as? String == error, "\(extra)")
            #expect(sink.closedWith?.code == .policyViolation)
        }
    }

    @Test func aVersionTwoViewerAloneKeepsItsTextsAcrossTheGap() throws {
        // The room's text table outlives the last version-2 viewer, so its resume needs only the
        // texts of the latest frame, and a fresh version-2 joiner still starts a new table.
        let h = WireV2Tests.demoHarness()
        let (watcher, sink) = h.viewer(extra: #","resumable":true"#, version: .v2)
        var decoder = ServerMessageDecoderV2()
        var client = ClientState()
        for message in try Self.decode(sink, .v2, &decoder) { client.apply(message) }
        h.service.closed(watcher)
        let (driver, _) = h.viewer()
        h.fling(by: driver, steps: 6, interval: 16, stride: 60)
        try WireV2Tests.runToRest(h)
        let (_, back) = h.viewer(extra: client.resumeJSON, version: .v2)
        let answer = try Self.decode(back, .v2, &decoder)
        #expect(answer.map(Self.type) == ["resumed", "frame"])
        let room = try #require(h.registry.room(named: "demo"))
        #expect(!room.wireTexts.all.isEmpty)
    }
}
