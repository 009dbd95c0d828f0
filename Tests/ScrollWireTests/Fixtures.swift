import ScrollEngine
@testable import ScrollWire

/// Values shared by the tests and by the examples in docs/protocol.md.
enum Fixtures {
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

    static func snapshot(frame: EffectFrame = docFrame, driverKey: String? = nil) -> Snapshot {
        Snapshot(room: "demo", viewer: "v7", viewers: 3, driver: nil, configuration: configuration,
                 sections: [TableSection(title: "Mon 3 Nov", rows: [0, 2, 1, 3].map { TableRow(id: $0, title: "") })],
                 frame: frame, frameInput: docInput, frameSentAt: docSentAt, driverKey: driverKey, sceneName: "demo")
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
