import Foundation
import Testing
import ScrollEngine
import ScrollcastRecording
import ScrollWire

/// The recording format (docs/recording.md): what it writes, that it reads back exactly, and
/// that it refuses what it does not allow with the line and the problem.
@Suite("Recording format")
struct RecordingFormatTests {
    /// One of each `InputKind` case, with awkward numbers within the protocol's limits;
    /// `InputKindName.init` fails to compile when a case is added, so this list cannot fall behind.
    static let everyKind: [InputKind] = [
        .pointerDown(Point(x: 0.1 + 0.2, y: -0.0)),
        .pointerMoved(Point(x: 1e-300, y: 999_999.999_999_999_9)),
        .pointerUp(Point(x: -5.5, y: -1_000_000)),
        .pointerCancelled,
        .wheel(dx: -3, dy: 120.25, mode: .pixel),
        .wheel(dx: 0, dy: 1, mode: .line),
        .wheel(dx: -0.0, dy: -1, mode: .page),
        .key(.arrowUp), .key(.shiftSpace), .key(.end),
        .scrollToRow(IndexPath(section: 1, row: 5), position: .middle, animated: true),
        .scrollToRow(IndexPath(section: 0, row: 1_000_000), position: .none, animated: false),
        .longPressBegan(Point(x: 150, y: 412.5)),
        .longPressMoved(Point(x: 150, y: 500.000_000_000_1)),
        .longPressEnded(Point(x: 151, y: 600)),
        .longPressCancelled,
        .resize(Size(width: 390, height: 844.333_333_333_333_3)),
        .reducedMotion(true), .reducedMotion(false),
    ]

    static let header = RecordingHeader(room: "demo", life: 3, scene: "seed-table", rowOrder: [[2, 0, 1], [], [3]],
                                        rowMoveVersion: 7, framePeriod: 1000.0 / 60)

    /// Compares doubles by their bits, so -0 and 0 differ.
    static func sameBits(_ a: InputKind, _ b: InputKind) -> Bool {
        String(reflecting: a) == String(reflecting: b) && a == b && signsOfZeros(a) == signsOfZeros(b)
    }

    static func signsOfZeros(_ kind: InputKind) -> [FloatingPointSign] {
        switch kind {
        case .pointerDown(let p), .pointerMoved(let p), .pointerUp(let p),
             .longPressBegan(let p), .longPressMoved(let p), .longPressEnded(let p): [p.x.sign, p.y.sign]
        case .wheel(let dx, let dy, _): [dx.sign, dy.sign]
        case .resize(let s): [s.width.sign, s.height.sign]
        default: []
        }
    }

    @Test func theListHasEveryCase() {
        #expect(Set(Self.everyKind.map(InputKindName.init)) == Set(InputKindName.allCases))
    }

    @Test(arguments: everyKind)
    func everyInputKindReadsBackBitForBit(_ kind: InputKind) throws {
        let event = InputEvent(id: 9_007_199_254_740_991, time: 16.666_666_666_666_668 * 7, kind: kind)
        let recording = Recording(header: Self.header, entries: [
            .input(viewer: "v12", event: event),
            .frame(sequence: 1, time: 0.1 + 0.2),
        ])
        let decoded = try RecordingDecoder.decode(RecordingEncoder.encode(recording))
        #expect(decoded == recording)
        guard case .input(let viewer, let back) = decoded.entries[0] else {
            Issue.record("not an input: \(decoded.entries[0])"); return
        }
        #expect(viewer == "v12")
        #expect(back.time.bitPattern == event.time.bitPattern)
        #expect(Self.sameBits(back.kind, kind))
    }

    @Test(arguments: [InputKind.pointerCancelled, .longPressCancelled])
    func cancelsReadBack(_ kind: InputKind) throws {
        let recording = Recording(header: Self.header, entries: [.cancel(viewer: "v1", event: InputEvent(id: 0, time: -0.0, kind: kind))])
        let decoded = try RecordingDecoder.decode(RecordingEncoder.encode(recording))
        #expect(decoded == recording)
        guard case .cancel(_, let event) = decoded.entries[0] else { Issue.record("not a cancel"); return }
        #expect(event.time.sign == .minus, "a negative zero keeps its sign")
    }

    @Test func linesAreCompactWithKeysInTheDocumentedOrder() {
        let recording = Recording(header: RecordingHeader(room: "r1", life: 2, scene: "demo", rowOrder: [[1, 0], [2]],
                                                          rowMoveVersion: 1, framePeriod: 1000.0 / 60), entries: [
            .input(viewer: "v3", event: InputEvent(id: 4, time: 812.5, kind: .wheel(dx: 0, dy: 120, mode: .line))),
            .frame(sequence: 1, time: 812.5),
            .input(viewer: "v3", event: InputEvent(id: 5, time: 900, kind: .pointerDown(Point(x: 120, y: -0.0)))),
            .cancel(viewer: "v3", event: InputEvent(id: 5, time: 950.25, kind: .pointerCancelled)),
            .frame(sequence: 2, time: 950.25),
        ])
        let text = String(decoding: RecordingEncoder.encode(recording), as: UTF8.self)
        #expect(text == """
            {"type":"recording","version":1,"room":"r1","life":2,"scene":"demo","rowOrder":[[1,0],[2]],"rowMoveVersion":1,"framePeriod":16.666666666666668}
            {"type":"input","viewer":"v3","id":4,"t":812.5,"kind":"wheel","dx":0,"dy":120,"mode":"line"}
            {"type":"frame","seq":1,"t":812.5}
            {"type":"input","viewer":"v3","id":5,"t":900,"kind":"pointerDown","x":120,"y":-0}
            {"type":"cancel","viewer":"v3","id":5,"t":950.25,"kind":"pointerCancel"}
            {"type":"frame","seq":2,"t":950.25}

            """)
    }

    @Test func unknownHeaderValuesAreNullAndOptionalFieldsMayBeLeftOut() throws {
        let header = RecordingHeader(room: "a", scene: "demo", rowOrder: [[0]])
        let line = String(decoding: RecordingEncoder.header(header), as: UTF8.self)
        #expect(line == #"{"type":"recording","version":1,"room":"a","life":null,"scene":"demo","rowOrder":[[0]],"rowMoveVersion":0,"framePeriod":null}"#)
        let minimal = try RecordingDecoder.decode(Array(#"{"type":"recording","version":1,"room":"a","scene":"demo","rowOrder":[[0]]}"#.utf8))
        #expect(minimal.header == header)
        #expect(minimal.entries.isEmpty)
    }

    @Test func windowsLineEndsAndAMissingFinalNewlineAreAccepted() throws {
        let text = "{\"type\":\"recording\",\"version\":1,\"room\":\"a\",\"scene\":\"demo\",\"rowOrder\":[[0]]}\r\n{\"type\":\"frame\",\"seq\":1,\"t\":0}"
        let recording = try RecordingDecoder.decode(Array(text.utf8))
        #expect(recording.entries == [.frame(sequence: 1, time: 0)])
    }

    static let head = #"{"type":"recording","version":1,"room":"a","scene":"demo","rowOrder":[[0,1]]}"#

    /// (file, line of the problem, words the message must contain).
    static let badFiles: [(String, Int, String)] = [
        ("", 1, "the file is empty"),
        (#"{"type":"frame","seq":1,"t":0}"#, 1, "starts with its header line"),
        (#"{"type":"recording","version":2,"room":"a","scene":"demo","rowOrder":[]}"#, 1, "version 2 is newer than this build reads (1)"),
        (#"{"type":"recording","version":0,"room":"a","scene":"demo","rowOrder":[]}"#, 1, "field 'version' must be an integer"),
        (#"{"type":"recording","version":1,"room":"a b","scene":"demo","rowOrder":[]}"#, 1, "room name must be"),
        (#"{"type":"recording","version":1,"room":"a","rowOrder":[]}"#, 1, "missing field 'scene'"),
        (#"{"type":"recording","version":1,"room":"a","scene":"demo"}"#, 1, "missing field 'rowOrder'"),
        (#"{"type":"recording","version":1,"room":"a","scene":"demo","rowOrder":[[0,-1]]}"#, 1, "row ids (integers ≥ 0)"),
        (#"{"type":"recording","version":1,"room":"a","scene":"demo","rowOrder":[[0],[0]]}"#, 1, "lists row 0 twice"),
        (#"{"type":"recording","version":1,"room":"a","scene":"demo","rowOrder":[],"framePeriod":0}"#, 1, "framePeriod"),
        ("[1,2]", 1, "must be a JSON object, got an array"),
        (head + "\n{\"type\":\"frame\",\"seq\":1,\"t\":0}\n\n{\"type\":\"frame\",\"seq\":2,\"t\":0}", 3, "empty line"),
        (head + "\n{\"type\":\"frame\",\"seq\":1,\"t\":0,}", 2, "not valid JSON: expected a quoted field name at byte 30"),
        (head + "\n{\"type\":\"warp\"}", 2, "unknown line type 'warp'; expected input, cancel or frame"),
        (head + "\n" + head, 2, "a second header"),
        (head + "\n{\"type\":\"frame\",\"seq\":2,\"t\":0}", 2, "the first frame must have seq 1, got 2"),
        (head + "\n{\"type\":\"frame\",\"seq\":1,\"t\":5}\n{\"type\":\"frame\",\"seq\":3,\"t\":6}", 3, "frame seq 3 after seq 1"),
        (head + "\n{\"type\":\"frame\",\"seq\":1,\"t\":5}\n{\"type\":\"frame\",\"seq\":2,\"t\":4.5}", 3, "frame t 4.5 is before the previous frame's t 5"),
        (head + "\n{\"type\":\"frame\",\"seq\":1}", 2, "missing field 't'"),
        (head + "\n{\"type\":\"input\",\"viewer\":\"v1\",\"id\":1,\"t\":0,\"kind\":\"pointerMove\",\"x\":1}", 2, "missing field 'y'"),
        (head + "\n{\"type\":\"input\",\"viewer\":\"v1\",\"id\":1,\"t\":0,\"kind\":\"teleport\"}", 2, "unknown input kind 'teleport'"),
        (head + "\n{\"type\":\"input\",\"viewer\":\"v1\",\"id\":-1,\"t\":0,\"kind\":\"pointerCancel\"}", 2, "field 'id' must be an integer"),
        (head + "\n{\"type\":\"input\",\"viewer\":\"\",\"id\":1,\"t\":0,\"kind\":\"pointerCancel\"}", 2, "field 'viewer' must not be empty"),
        (head + "\n{\"type\":\"input\",\"viewer\":\"v1\",\"id\":1,\"t\":0,\"kind\":\"wheel\",\"dx\":0,\"dy\":1,\"mode\":\"inch\"}", 2, "field 'mode' must be one of pixel, line, page"),
        (head + "\n{\"type\":\"cancel\",\"viewer\":\"v1\",\"id\":1,\"t\":0,\"kind\":\"wheel\",\"dx\":0,\"dy\":1,\"mode\":\"line\"}", 2, "a cancel's kind must be pointerCancel or longPressCancel"),
        (head + "\n{\"type\":\"frame\",\"seq\":1,\"t\":0,\"t\":1}", 2, "duplicate field 't'"),
    ]

    @Test(arguments: badFiles)
    func badLinesAreRefusedWithTheirLineNumber(_ file: String, _ line: Int, _ words: String) {
        #expect {
            _ = try RecordingDecoder.decode(Array(file.utf8))
        } throws: { error in
            guard let error = error as? RecordingError else { return false }
            return error.line == line && error.message.contains(words) && error.description.hasPrefix("line \(line): ")
        }
    }

    @Test func invalidUTF8IsRefusedWithItsLine() {
        var bytes = Array((Self.head + "\n").utf8)
        bytes += [0x7B, 0xFF, 0x7D]
        #expect(throws: RecordingError(line: 2, "not valid UTF-8")) { try RecordingDecoder.decode(bytes) }
    }
}
