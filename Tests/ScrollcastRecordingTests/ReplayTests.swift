import Testing
import ScrollEngine
import ScrollWire
import ScrollcastRecording

/// Replay without a server: the engine and the recorded times alone.
@Suite("Replay")
struct ReplayTests {
    static func scene() -> SceneConfiguration {
        SceneConfiguration(sections: (0..<2).map { s in
            TableSection(title: "Section \(s)", rows: (0..<20).map { r in
                TableRow(id: s * 20 + r, title: "Row \(s * 20 + r)", group: "S\(s)", detail: "\(r)", height: 64)
            })
        })
    }

    static func recording(_ entries: [RecordingEntry], order: [[Int]] = scene().rowOrder) -> Recording {
        Recording(header: RecordingHeader(room: "r", life: 1, scene: "small", rowOrder: order), entries: entries)
    }

    /// What the room would have sent: the engine at each frame's time, the last input named.
    @Test func framesAreTheEnginesAtTheRecordedTimesNamingTheLastInput() throws {
        let wheel = InputEvent(id: 3, time: 100, kind: .wheel(dx: 0, dy: 240, mode: .pixel))
        let recording = Self.recording([
            .frame(sequence: 1, time: 50),
            .input(viewer: "v1", event: wheel),
            .frame(sequence: 2, time: 100),
            .frame(sequence: 3, time: 116.5),
        ])
        let frames = try Replay.frames(of: recording, configuration: Self.scene(), sentAt: 0)
        var scene = ScrollScene(configuration: Self.scene())
        var expected: [[UInt8]] = []
        var first = scene.frame(at: 50); first.sequence = 1
        expected.append(ServerMessageEncoder.frame(first, input: nil, sentAt: 0))
        _ = try scene.apply(wheel)
        for (sequence, time) in [(UInt64(2), 100.0), (3, 116.5)] {
            var frame = scene.frame(at: time); frame.sequence = sequence
            expected.append(ServerMessageEncoder.frame(frame, input: AppliedInput(viewer: "v1", id: 3), sentAt: 0))
        }
        #expect(frames == expected)
        #expect(String(decoding: frames[1], as: UTF8.self).contains(#""sentAt":0,"input":{"viewer":"v1","id":3}"#))
    }

    @Test func aCancelMovesNoInputName() throws {
        let recording = Self.recording([
            .input(viewer: "v1", event: InputEvent(id: 1, time: 0, kind: .pointerDown(Point(x: 100, y: 300)))),
            .frame(sequence: 1, time: 0),
            .cancel(viewer: "v1", event: InputEvent(id: 1, time: 10, kind: .pointerCancelled)),
            .frame(sequence: 2, time: 10),
        ])
        let frames = try Replay.frames(of: recording, configuration: Self.scene()).map { String(decoding: $0, as: UTF8.self) }
        #expect(frames.allSatisfy { $0.contains(#""input":{"viewer":"v1","id":1}"#) })
    }

    @Test func theStartingRowOrderIsTheHeaders() throws {
        var order = Self.scene().rowOrder
        order[0].swapAt(0, 1)
        let frames = try Replay.frames(of: Self.recording([.frame(sequence: 1, time: 0)], order: order),
                                       configuration: Self.scene())
        let text = String(decoding: frames[0], as: UTF8.self)
        #expect(text.contains(#""rows":[{"s":0,"r":0,"id":1,"#), "row 1 comes first, as the header says")
    }

    @Test func anOrderThatDoesNotFitTheSceneIsRefusedOnLine1() {
        #expect(throws: RecordingError(line: 1, "rowOrder does not fit scene 'small' as this build has it (2 sections, 40 rows)")) {
            try Replay.frames(of: Self.recording([], order: [[0, 1, 2]]), configuration: Self.scene())
        }
    }

    @Test func anInputTheEngineRefusesNamesItsLine() {
        let recording = Self.recording([
            .input(viewer: "v1", event: InputEvent(id: 1, time: 100, kind: .wheel(dx: 0, dy: 1, mode: .line))),
            .frame(sequence: 1, time: 100),
            .input(viewer: "v1", event: InputEvent(id: 2, time: 50, kind: .wheel(dx: 0, dy: 1, mode: .line))),
        ])
        #expect {
            try Replay.frames(of: recording, configuration: Self.scene())
        } throws: { error in
            guard let error = error as? RecordingError else { return false }
            return error.line == 4 && error.message.hasPrefix("the engine refused this input")
        }
    }
}
