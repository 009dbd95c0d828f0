import ScrollEngine
@testable import ScrollWire

/// Values shared by the tests and by the examples in docs/protocol.md.
enum Fixtures {
    /// The grant in the doc's `granted` examples (a server makes 64 random hex digits).
    static let docGrant = "989ca3bcfb1bd56e276b9968f724a891c4ce32bcf4ed1591dad2acf5f13e5669"
    /// The doc's `applied` example: v7's pointer move 43, applied at room time 53216.4 after frame 1042.
    /// The inputs stream's `batch` example of docs/protocol.md, in both versions.
    static let docBatch = BatchMessage(changes: 8, complete: 1279.17, applied: [
        AppliedMessage(after: 7, time: 1266.3, viewer: "v2", id: 6, cause: .input, change: .input(.pointerMoved(Point(x: 120, y: 380)))),
        AppliedMessage(after: 8, time: 1275.4, viewer: "v2", id: 7, cause: .input, change: .input(.pointerUp(Point(x: 120, y: 371.5)))),
    ])
    /// A batch as the server makes it while someone drags: one move at a room time no short
    /// count gives (an f64), at a point the page or the load tool sends (0.01 and 1/256 pt),
    /// its mark lowered to a short Δ (`BatchMessage.compactMark`).
    static let oneMoveBatch = BatchMessage(changes: 1043, complete: BatchMessage.compactMark(20417.6128, after: 20417.578125), applied: [
        // A room time as the room stamps it, on the 1/256 ms grid (RoomTime).
        AppliedMessage(after: 1187, time: 20417.578125, viewer: "v7", id: 44, cause: .input,
                       change: .input(.pointerMoved(Point(x: 187.43, y: 655.25)))),
    ])
    /// Its beat with the frame hash (version 2 bytes).
    static let docHeld = HeldMessage(input: 43, time: 53210.25, at: 53228.5)
    static let docHashedBeat = ServerMessageEncoderV2.beat(BeatMessage(time: 1279.17, complete: 1279.17, hash: 0x0f3e_1c9a_8b7d_6e5f))

    static let docApplied = AppliedMessage(after: 1042, time: 53216.4, viewer: "v7", id: 43, cause: .input,
                                           change: .input(.pointerMoved(Point(x: 121.5, y: 352))))

    static let row12 = VisibleRow(indexPath: IndexPath(section: 0, row: 12), id: 12, y: 96.5, height: 64,
                                  title: "Coffee with Ana", subtitle: "Blue Bottle, Hayes Valley", detail: "08:40")

    /// A frame with every optional part present, awkward numbers and strings that need escaping.
    static let busyFrame = EffectFrame(
        sequence: 1042, time: 53211.25, lastInputID: 42, phase: .decelerating, isAnimating: true,
        viewport: Size(width: 390, height: 844), insets: EdgeInsets(top: 44), contentOffset: 812.5123456789,
        contentHeight: 190512, rows: [
            row12,
            VisibleRow(indexPath: IndexPath(section: 1, row: 0), id: 3001, y: -0.0, height: 44.25,
                       title: "Quote \" backslash \\ tab \t newline \n bell \u{07}", subtitle: "Café ☕️ 日本 😀",
                       detail: "</script>"),
        ],
        sectionHeaders: [VisibleSectionHeader(section: 0, y: 44, height: 28, title: "Mon 3 Nov")],
        backgroundOffset: 17.2, parallaxLayers: [LayerPosition(index: 0, y: -962.5), LayerPosition(index: 1, y: 1e-7)],
        indicator: IndicatorState(rect: Rect(x: 384, y: 61.2, width: 3, height: 36), alpha: 1),
        infoPanel: InfoPanelState(rect: Rect(x: 290, y: 55.2, width: 88, height: 48), alpha: 0.75, title: "Mon 3 Nov", detail: "08:40"),
        liftedRow: LiftedRowState(row: VisibleRow(indexPath: IndexPath(section: 0, row: 14), id: 17, y: 210.75, height: 64,
                                                  title: "Standup", subtitle: "Room 4", detail: "09:30"),
                                  lift: 0.5, isSettling: false),
        placeholder: PlaceholderState(indexPath: IndexPath(section: 0, row: 15), y: 224.5, height: 64))

    /// The example frame in docs/protocol.md: one row, nothing lifted.
    static let docFrame = EffectFrame(
        sequence: 1042, time: 53211, lastInputID: 42, phase: .decelerating, isAnimating: true,
        viewport: Size(width: 390, height: 844), insets: EdgeInsets(top: 44), contentOffset: 812.5,
        contentHeight: 190512, rows: [row12],
        sectionHeaders: [VisibleSectionHeader(section: 0, y: 44, height: 28, title: "Mon 3 Nov")],
        backgroundOffset: 17.2, parallaxLayers: [LayerPosition(index: 0, y: -962.5)],
        indicator: IndicatorState(rect: Rect(x: 384, y: 61.2, width: 3, height: 36), alpha: 1),
        infoPanel: InfoPanelState(rect: Rect(x: 290, y: 55.2, width: 88, height: 48), alpha: 1, title: "Mon 3 Nov", detail: "08:40"),
        liftedRow: nil, placeholder: nil)

    static let docInput = AppliedInput(viewer: "v7", id: 42)
    static let docSentAt = 1763800000123.4

    static let configuration = SceneConfiguration(
        parallaxLayers: [ParallaxLayer(image: "images/header-sky.svg", size: Size(width: 390, height: 330))],
        background: BackgroundImage(image: "images/background.svg", height: 4000),
        sections: [TableSection(title: "Mon 3 Nov", rows: (0..<4).map { TableRow(id: $0, title: "Row \($0)") })])

    static func snapshot(frame: EffectFrame = docFrame, driverKey: String? = nil, replica: ReplicaStart? = nil) -> Snapshot {
        Snapshot(room: "demo", viewer: "v7", viewers: 3, driver: nil, configuration: configuration,
                 sections: [TableSection(title: "Mon 3 Nov", rows: [0, 2, 1, 3].map { TableRow(id: $0, title: "") })],
                 frame: frame, frameInput: docInput, frameSentAt: docSentAt, driverKey: driverKey, sceneName: "demo",
                 resumePoint: replica == nil ? nil : ResumePoint(life: 7, rowMoveVersion: 2), replica: replica)
    }

    /// One input of every kind, as the doc's examples show them.
    static let inputs: [InputKind] = [
        .pointerDown(Point(x: 120, y: 400)), .pointerMoved(Point(x: 121.5, y: 352)), .pointerUp(Point(x: 122, y: 301.25)),
        .pointerCancelled, .wheel(dx: 0, dy: 120, mode: .pixel), .key(.pageDown),
        .scrollToRow(IndexPath(section: 0, row: 40), position: .middle, animated: true),
        .longPressBegan(Point(x: 200, y: 300)), .longPressMoved(Point(x: 200, y: 380)),
        .longPressEnded(Point(x: 200, y: 380)), .longPressCancelled,
        .resize(Size(width: 414, height: 896)), .reducedMotion(true),
    ]
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// The version-2 examples in docs/protocol.md: a session as a viewer receives it.
enum FixturesV2 {
    /// The frame after the doc's frame: scrolled 32.5 pt further, a second row in view, the panel
    /// naming that row's time. Its rows follow one another, so each costs one byte.
    static var nextFrame: EffectFrame {
        var frame = Fixtures.docFrame
        frame.sequence = 1043
        frame.time = 53227.5
        frame.contentOffset = 845
        frame.rows = [
            VisibleRow(indexPath: IndexPath(section: 0, row: 12), id: 12, y: 64, height: 64,
                       title: "Coffee with Ana", subtitle: "Blue Bottle, Hayes Valley", detail: "08:40"),
            VisibleRow(indexPath: IndexPath(section: 0, row: 13), id: 13, y: 128, height: 56,
                       title: "Lunch", subtitle: "", detail: "12:30"),
        ]
        frame.backgroundOffset = 17.89
        frame.parallaxLayers = [LayerPosition(index: 0, y: -995)]
        frame.indicator.rect.origin.y = 61.9
        frame.infoPanel?.rect.origin.y = 55.9
        frame.infoPanel?.detail = "12:30"
        return frame
    }

    static let nextInput = AppliedInput(viewer: "v7", id: 43)
    static let nextSentAt = 1763800000139.9

    /// v7 has held row 12 for half a second: it is lifted (drawn where the finger holds it, half
    /// lifted), its placeholder keeps its place, and the table shows only row 13. No panel.
    static var liftedFrame: EffectFrame {
        var frame = later(1044, at: 53727.5, .tracking)
        frame.rows = [VisibleRow(indexPath: IndexPath(section: 0, row: 13), id: 13, y: 128, height: 56,
                                 title: "Lunch", subtitle: "", detail: "12:30")]
        frame.liftedRow = LiftedRowState(row: VisibleRow(indexPath: IndexPath(section: 0, row: 12), id: 12, y: 66, height: 64,
                                                         title: "Coffee with Ana", subtitle: "Blue Bottle, Hayes Valley",
                                                         detail: "08:40"), lift: 0.5, isSettling: false)
        frame.placeholder = PlaceholderState(indexPath: IndexPath(section: 0, row: 12), y: 64, height: 64)
        return frame
    }

    static let liftedInput = AppliedInput(viewer: "v7", id: 45)
    static let liftedSentAt = 1763800000640.2

    /// Made up to show the rarer fields: phase `bouncing`, and row 13 drawn 72 pt high while its
    /// texts say 56 (row code bit 4). No scene changes a row's height today.
    static var bouncingFrame: EffectFrame {
        var frame = later(1045, at: 53744.25, .bouncing)
        frame.rows[1].height = 72
        return frame
    }

    /// `nextFrame` as frame `seq` at `time` in `phase`, without the panel.
    private static func later(_ seq: UInt64, at time: Double, _ phase: ScrollPhase) -> EffectFrame {
        var frame = nextFrame
        (frame.sequence, frame.time, frame.phase, frame.infoPanel) = (seq, time, phase, nil)
        return frame
    }

    static let bouncingSentAt = 1763800000657.0

    /// The doc's examples in order, as the encoder writes them.
    static func session() -> [[UInt8]] {
        var table = WireTextTable()
        let snapshot = ServerMessageEncoderV2.snapshot(Fixtures.snapshot(), texts: &table).snapshot
        let next = ServerMessageEncoderV2.frame(nextFrame, input: nextInput, sentAt: nextSentAt, texts: &table)
        let lifted = ServerMessageEncoderV2.frame(liftedFrame, input: liftedInput, sentAt: liftedSentAt, texts: &table)
        let bouncing = ServerMessageEncoderV2.frame(bouncingFrame, input: nil, sentAt: bouncingSentAt, texts: &table)
        precondition(lifted.texts == nil && bouncing.texts == nil, "the doc's later frames need no new texts")
        return [
            snapshot, next.texts!, next.frame, lifted.frame, bouncing.frame,
            ServerMessageEncoderV2.rowMoved(rowID: 17, from: IndexPath(section: 0, row: 3), to: IndexPath(section: 0, row: 5),
                                            by: "v7", rowMoveVersion: 12),
            ServerMessageEncoderV2.presence(viewers: 3, driver: "v7", locked: false),
            ServerMessageEncoderV2.refused(input: 46, code: .gestureInProgress, reason: "a gesture is already in progress; end it first"),
            ServerMessageEncoderV2.error(message: "field 'x' must be a finite number"),
            ServerMessageEncoderV2.resumed(ResumedMessage(room: "demo", viewer: "v12", viewers: 3, driver: nil, locked: false,
                                                          life: 4_503_599_627_370_497, rowMoveVersion: 13, from: 1042, seq: 1050)),
            ServerMessageEncoderV2.applied(Fixtures.docApplied),
            ServerMessageEncoderV2.applied({ var m = Fixtures.docApplied; m.complete = 53217.25; return m }()),
            ServerMessageEncoderV2.beat(BeatMessage(time: 53230.5, complete: 53230.5)),
            ServerMessageEncoderV2.batch(Fixtures.docBatch),
            ServerMessageEncoderV2.batch(Fixtures.oneMoveBatch),
            Fixtures.docHashedBeat,
            ServerMessageEncoderV2.held(Fixtures.docHeld),
            ServerMessageEncoderV2.pong(id: 7),
            ServerMessageEncoderV2.presence(viewers: 4, driver: "v7", locked: true, exploring: 1, granted: ["v9"]),
            ServerMessageEncoderV2.sharing(.asked(viewer: "v9", expiresIn: 30_000)),
            ServerMessageEncoderV2.sharing(.granted(viewer: "v9", by: "v7", grant: Fixtures.docGrant)),
            ServerMessageEncoderV2.sharing(.denied(viewer: "v11", by: "v7")),
            ServerMessageEncoderV2.sharing(.expired(viewer: "v12")),
            ServerMessageEncoderV2.sharing(.follow(by: "v7")),
        ]
    }
}

extension FixturesV2 {
    /// What `scrollwire-fuzz` primes its second version-2 decoder with (Sources/scrollwire-fuzz):
    /// texts for rows 0…63, sections 0…7 and panel labels 0…7, so corpus frames decode to the end.
    static let fuzzPriming = WireTexts(
        rows: (0..<64).map { RowTexts(id: $0, height: 44, title: "Row \($0)", subtitle: "", detail: "") },
        sections: (0..<8).map { SectionTitle(section: $0, title: "Section \($0)") },
        labels: (0..<8).map { PanelLabel(label: $0, title: "Day \($0)", detail: "0\($0):00") })

    static var primedDecoder: ServerMessageDecoderV2 {
        var decoder = ServerMessageDecoderV2()
        _ = try? decoder.decode(ServerMessageEncoderV2.texts(fuzzPriming))
        return decoder
    }

    /// A frame showing only primed texts, with every optional part: rows 3…5 of section 1, row 0
    /// of section 2, a lifted row and its placeholder, two headers and panel label 2.
    static var primedFrame: EffectFrame {
        var frame = Fixtures.busyFrame
        frame.rows = [
            VisibleRow(indexPath: IndexPath(section: 1, row: 3), id: 3, y: 50.5, height: 44, title: "Row 3", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 1, row: 4), id: 4, y: 94.5, height: 44, title: "Row 4", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 1, row: 5), id: 9, y: 140, height: 60, title: "Row 9", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 2, row: 0), id: 10, y: 200, height: 44, title: "Row 10", subtitle: "", detail: ""),
        ]
        frame.sectionHeaders = [VisibleSectionHeader(section: 1, y: 44, height: 28, title: "Section 1"),
                                VisibleSectionHeader(section: 2, y: 172, height: 28, title: "Section 2")]
        frame.infoPanel?.title = "Day 2"
        frame.infoPanel?.detail = "02:00"
        frame.liftedRow = LiftedRowState(row: VisibleRow(indexPath: IndexPath(section: 1, row: 4), id: 4, y: 99, height: 44,
                                                         title: "Row 4", subtitle: "", detail: ""), lift: 0.75, isSettling: true)
        return frame
    }

    /// Version-2 seeds for the fuzz corpus (Fuzz/corpus/seed-v2-*.bin): one of every message.
    static func fuzzSeeds() -> [[UInt8]] {
        var table = WireTextTable(fuzzPriming)
        var plain = Fixtures.docFrame
        plain.rows = []; plain.sectionHeaders = []; plain.infoPanel = nil
        return [
            ServerMessageEncoderV2.snapshot(Fixtures.snapshot(driverKey: "k3y"), texts: &table).snapshot,
            ServerMessageEncoderV2.texts(WireTexts(rows: [RowTexts(id: 7, height: 56, title: "Café ☕️", subtitle: "sub", detail: "12:30")],
                                                   sections: [SectionTitle(section: 3, title: "Tue 4 Nov")],
                                                   labels: [PanelLabel(label: 9, title: "Tue 4 Nov", detail: "12:30")])),
            ServerMessageEncoderV2.frame(primedFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt, texts: &table).frame,
            ServerMessageEncoderV2.frame(plain, input: nil, sentAt: 0, texts: &table).frame,
            ServerMessageEncoderV2.rowMoved(rowID: 17, from: IndexPath(section: 0, row: 3), to: IndexPath(section: 1, row: 5), by: "v7", rowMoveVersion: 12),
            ServerMessageEncoderV2.presence(viewers: 3, driver: "v7", locked: true),
            ServerMessageEncoderV2.refused(input: 43, code: .driving, reason: "v7 is driving"),
            ServerMessageEncoderV2.error(message: "field 'x' must be a finite number"),
            ServerMessageEncoderV2.resumed(ResumedMessage(room: "demo", viewer: "v12", viewers: 2, driver: "v7", locked: false,
                                                          life: 4_503_599_627_370_497, rowMoveVersion: 13, from: 1042, seq: 1050)),
            ServerMessageEncoderV2.applied(AppliedMessage(after: 7, time: 120.25, viewer: "v3", id: 9, cause: .leave,
                                                          change: .input(.pointerCancelled))),
            ServerMessageEncoderV2.applied(AppliedMessage(after: 8, time: 130, viewer: nil, id: 0, cause: .takeBack,
                                                          change: .rowOrder([[0, 2, 1], [3]]))),
            ServerMessageEncoderV2.applied(AppliedMessage(after: 9, time: 140.5, viewer: "v3", id: 10, cause: .input,
                                                          change: .input(.pointerMoved(Point(x: 1, y: 2))), complete: 141)),
            ServerMessageEncoderV2.beat(BeatMessage(time: 150.25, complete: 150.25)),
            ServerMessageEncoderV2.presence(viewers: 5, driver: nil, locked: true, exploring: 2, granted: ["v9", "v10"]),
            ServerMessageEncoderV2.sharing(.asked(viewer: "v9", expiresIn: 30_000)),
            ServerMessageEncoderV2.sharing(.granted(viewer: "v9", by: "v7", grant: "g")),
            ServerMessageEncoderV2.sharing(.denied(viewer: "v9", by: "v7")),
            ServerMessageEncoderV2.sharing(.expired(viewer: "v9")),
            ServerMessageEncoderV2.sharing(.follow(by: "v7")),
            ServerMessageEncoderV2.batch(BatchMessage(changes: 3, complete: 160, applied: [
                AppliedMessage(after: 9, time: 150.5, viewer: "v3", id: 11, cause: .input, change: .input(.wheel(dx: 0, dy: 120, mode: .line))),
                AppliedMessage(after: 9, time: 152, viewer: nil, id: 0, cause: .takeBack, change: .rowOrder([[1, 0]]))])),
            ServerMessageEncoderV2.beat(BeatMessage(time: 160, complete: 159.5, hash: 0xfedc_ba98_7654_3210)),
            ServerMessageEncoderV2.snapshot(Fixtures.snapshot(replica: ReplicaStart(
                engine: 1, time: 53230.5, changes: 44, input: Fixtures.docInput, state: [0x53, 0x43, 0x53, 0x54, 1])),
                                            texts: &table).snapshot,
            ServerMessageEncoderV2.held(HeldMessage(input: 44, time: 170.1, at: 1e300)),
            ServerMessageEncoderV2.pong(id: 9_007_199_254_740_991),
        ]
    }
}
