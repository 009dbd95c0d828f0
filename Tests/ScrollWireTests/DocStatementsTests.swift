import Testing
import ScrollEngine
@testable import ScrollWire

/// Statements of docs/protocol.md about the encoders and decoders that its examples do not show.
@Suite("docs/protocol.md statements")
struct DocStatementsTests {
    /// A scene without a background image: its frames still carry `background`, at offset 0.
    @Test func aSceneWithoutABackgroundHasBackgroundNullAndFramesSayOffset0() throws {
        let configuration = SceneConfiguration(
            sections: [TableSection(title: "A", rows: (0..<30).map { TableRow(id: $0, title: "Row \($0)") })])
        var scene = ScrollScene(configuration: configuration)
        try scene.apply(InputEvent(id: 1, time: 0, kind: .wheel(dx: 0, dy: 300, mode: .pixel)))
        let frame = scene.frame(at: 100)
        let v1 = ServerMessageEncoder.frame(frame, input: nil, sentAt: 0).text
        #expect(v1.contains(#""background":{"offset":0}"#), "\(v1)")
        let snapshot = Snapshot(room: "r", viewer: "v1", viewers: 1, driver: nil, configuration: configuration,
                                sections: configuration.sections, frame: frame, frameInput: nil, frameSentAt: 0,
                                driverKey: nil, sceneName: "demo")
        #expect(ServerMessageEncoder.snapshot(snapshot).text.contains(#""background":null"#))
    }

    /// "A value not listed here is read as idle, in version 1 and version 2 alike."
    @Test func anUnlistedPhaseReadsAsIdleInBothVersions() throws {
        var frame = Fixtures.docFrame
        frame.rows = []; frame.sectionHeaders = []; frame.infoPanel = nil
        frame.sequence = 1; frame.time = 0
        let v1 = ServerMessageEncoder.frame(frame, input: nil, sentAt: 0).text
            .replacingOccurrences(of: #""phase":"decelerating""#, with: #""phase":"gliding""#)
        guard case .frame(let fromV1) = try ServerMessageDecoder.decode(v1) else { Issue.record("not a frame"); return }
        #expect(fromV1.effectFrame(insets: .zero).phase == .idle)

        var table = WireTextTable()
        var bytes = ServerMessageEncoderV2.frame(frame, input: nil, sentAt: 0, texts: &table).frame
        let phaseByte = 5  // after type, seq 1, t 0, sentAt 0, flags: one byte each
        #expect(bytes[phaseByte] == 2, "decelerating")
        bytes[phaseByte] = 9
        var decoder = ServerMessageDecoderV2()
        guard case .message(.frame(let fromV2)) = try decoder.decode(bytes) else { Issue.record("not a frame"); return }
        #expect(fromV2.phase == "idle")
    }

    /// `frame`: "a frame goes out only if a client would decode something different from the last
    /// frame sent in a field other than seq, t and sentAt (the numbers compared as rounded for the wire)".
    @Test func aFrameShowsTheSameAsAnotherWhenOnlySeqTimeOrUnwrittenDigitsDiffer() {
        let a = Fixtures.busyFrame
        var b = a
        (b.sequence, b.time, b.lastInputID) = (a.sequence + 5, a.time + 80, nil)
        b.contentOffset += 0.002  // 812.5123… and 812.5143… are both written 812.51
        b.indicator.alpha -= 0.0004
        #expect(b.showsTheSame(as: a), "the same bytes but for seq and t")
        var moved = b
        moved.contentOffset += 0.01
        #expect(!moved.showsTheSame(as: a))
        var faded = b
        faded.indicator.alpha -= 0.001
        #expect(!faded.showsTheSame(as: a))
        var stopped = b
        stopped.isAnimating = false
        #expect(!stopped.showsTheSame(as: a), "the frame that says motion stopped always goes out")
        var lifted = b
        lifted.liftedRow?.lift = 0.75
        #expect(!lifted.showsTheSame(as: a))
    }
}
