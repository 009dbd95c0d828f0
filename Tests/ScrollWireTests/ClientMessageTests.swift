import Foundation
import ScrollEngine
import Testing
@testable import ScrollWire

@Suite("Client messages")
struct ClientMessageTests {
    @Test("join round-trips with and without optional fields")
    func joinRoundTrip() throws {
        for request in [JoinRequest(room: "demo"),
                        JoinRequest(room: "a.B-9_z", client: "scrollcast-page/1", driverKey: "k3Y-_~!", lock: true)] {
            let text = ClientMessageEncoder.join(request)
            #expect(try ClientMessageDecoder.decode(text) == .join(request))
        }
        #expect(ClientMessageEncoder.join(JoinRequest(room: "demo")) == #"{"type":"join","room":"demo"}"#)
    }

    @Test("join names its scene by name; absent or null means none", arguments: ["demo", "seed-table", "tomorrow"])
    func joinScene(name: String) throws {
        let request = JoinRequest(room: "r", scene: name)
        let text = ClientMessageEncoder.join(request)
        #expect(text == #"{"type":"join","room":"r","scene":"\#(name)"}"#)
        #expect(try ClientMessageDecoder.decode(text) == .join(request))
        #expect(try ClientMessageDecoder.decode(#"{"type":"join","room":"r","scene":null}"#) == .join(JoinRequest(room: "r")))
        #expect(try ClientMessageDecoder.decode(#"{"type":"join","room":"r"}"#) == .join(JoinRequest(room: "r", scene: nil)))
    }

    @Test("resume: moves left out or null is 0; whole numbers in any spelling are integers; resume implies resumable")
    func resumeFields() throws {
        let expected = JoinRequest(room: "r", resume: ResumeRequest(life: 7, seq: 1025, rowMoveVersion: 0))
        for resume in [#"{"life":7,"seq":1025,"moves":null}"#, #"{"life":7,"seq":1025}"#,
                       #"{"life":7,"seq":1025.0,"moves":0}"#, #"{"life":7.0,"seq":1.025e3,"moves":0.0}"#] {
            #expect(try ClientMessageDecoder.decode(#"{"type":"join","room":"r","resume":\#(resume)}"#) == .join(expected), "\(resume)")
        }
        let refusals = [(#"{"life":7,"seq":1025.5,"moves":0}"#, "field 'resume.seq' must be an integer in 0…9007199254740991"),
                        (#"{"life":7,"seq":null,"moves":0}"#, "field 'resume.seq' must be an integer in 0…9007199254740991"),
                        (#"{"life":7,"moves":0}"#, "missing field 'resume.seq'"),
                        (#"{"life":7,"seq":1,"moves":"2"}"#, "field 'resume.moves' must be an integer in 0…9007199254740991")]
        for (resume, message) in refusals {
            #expect(throws: WireError(message)) { try ClientMessageDecoder.decode(#"{"type":"join","room":"r","resume":\#(resume)}"#) }
        }
        guard case .join(let both) = try ClientMessageDecoder.decode(#"{"type":"join","room":"r","resumable":false,"resume":{"life":7,"seq":1}}"#) else {
            Issue.record("not a join"); return
        }
        #expect(both.resumable == false && both.wantsResumePoint)
    }

    @Test("every input kind round-trips and uses its wire name", arguments: Fixtures.inputs)
    func inputRoundTrip(kind: InputKind) throws {
        let message = InputMessage(id: 9_007_199_254_740_991, clientTime: 18234.5, kind: kind)
        let text = ClientMessageEncoder.input(message)
        #expect(text.contains(#""kind":"\#(InputKindName(kind).rawValue)""#))
        #expect(try ClientMessageDecoder.decode(text) == .input(message))
        #expect(try ClientMessageDecoder.decode(Array(text.utf8)) == .input(message))
    }

    @Test("wire kind names map to the engine's cases")
    func kindNames() throws {
        let expected: [String: InputKind] = [
            #""kind":"pointerDown","x":1,"y":2"#: .pointerDown(Point(x: 1, y: 2)),
            #""kind":"pointerMove","x":1,"y":2"#: .pointerMoved(Point(x: 1, y: 2)),
            #""kind":"pointerUp","x":1,"y":2"#: .pointerUp(Point(x: 1, y: 2)),
            #""kind":"pointerCancel""#: .pointerCancelled,
            #""kind":"wheel","dx":-3,"dy":2.5,"mode":"line""#: .wheel(dx: -3, dy: 2.5, mode: .line),
            #""kind":"key","key":"shiftSpace""#: .key(.shiftSpace),
            #""kind":"scrollToRow","section":1,"row":2,"position":"bottom","animated":false"#:
                .scrollToRow(IndexPath(section: 1, row: 2), position: .bottom, animated: false),
            #""kind":"longPressBegan","x":1,"y":2"#: .longPressBegan(Point(x: 1, y: 2)),
            #""kind":"longPressMove","x":1,"y":2"#: .longPressMoved(Point(x: 1, y: 2)),
            #""kind":"longPressEnd","x":1,"y":2"#: .longPressEnded(Point(x: 1, y: 2)),
            #""kind":"longPressCancel""#: .longPressCancelled,
            #""kind":"resize","width":100,"height":4000"#: .resize(Size(width: 100, height: 4000)),
            #""kind":"reducedMotion","on":false"#: .reducedMotion(false),
        ]
        #expect(expected.count == InputKindName.allCases.count)
        for (fields, kind) in expected {
            let decoded = try ClientMessageDecoder.decode(#"{"type":"input","id":1,"t":0,\#(fields)}"#)
            #expect(decoded == .input(InputMessage(id: 1, clientTime: 0, kind: kind)), "\(fields)")
        }
    }

    @Test("unknown fields are ignored, whitespace and escapes accepted")
    func lenientWhereSafe() throws {
        let text = " {\"extra\": [1, {\"deep\": null}], \"type\" : \"join\", \"room\": \"d\\u0065mo\", \"lock\": false }\n"
        #expect(try ClientMessageDecoder.decode(text) == .join(JoinRequest(room: "demo")))
        let null = #"{"type":"join","room":"demo","client":null,"driverKey":null,"lock":null}"#
        #expect(try ClientMessageDecoder.decode(null) == .join(JoinRequest(room: "demo")))
    }

    static let invalid: [(String, String)] = [
        // Shape and syntax.
        ("", "message is not valid JSON: unexpected end at byte 0"),
        ("[1,2]", "message must be a JSON object, got an array"),
        ("\"join\"", "message must be a JSON object, got a string"),
        ("null", "message must be a JSON object, got null"),
        ("{\"type\":\"join\",\"room\":\"demo\"", "message is not valid JSON: expected ',' or '}' at byte 28"),
        ("{\"type\":\"join\",\"room\":\"demo\"} x", "message is not valid JSON: unexpected data after the JSON value at byte 30"),
        ("{'type':'join'}", "message is not valid JSON: expected a quoted field name at byte 1"),
        ("{\"type\":\"join\",\"room\":\"de\tmo\"}", "message is not valid JSON: control character in string at byte 25"),
        ("{\"type\":\"join\",\"room\":\"\\ud800\"}", "message is not valid JSON: lone surrogate in \\u escape at byte 29"),
        (String(repeating: "[", count: 40), "message is not valid JSON: nested deeper than 16 levels at byte 16"),
        ("{\"type\":\"join\",\"type\":\"input\"}", "duplicate field 'type'"),
        ("{\"type\":\"input\",\"id\":01,\"t\":0,\"kind\":\"pointerCancel\"}", "message is not valid JSON: invalid number (leading zero) at byte 22"),
        // Type and kind.
        ("{}", "missing field 'type'"),
        ("{\"type\":7}", "field 'type' must be a string"),
        ("{\"type\":\"foo\"}", "unknown message type 'foo'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"bar\"}", "unknown input kind 'bar'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0}", "missing field 'kind'"),
        // join.
        ("{\"type\":\"join\"}", "missing field 'room'"),
        ("{\"type\":\"join\",\"room\":\"\"}", "room name must be 1–64 characters of A–Z a–z 0–9 _ - ."),
        ("{\"type\":\"join\",\"room\":\"a b\"}", "room name must be 1–64 characters of A–Z a–z 0–9 _ - ."),
        ("{\"type\":\"join\",\"room\":\"café\"}", "room name must be 1–64 characters of A–Z a–z 0–9 _ - ."),
        ("{\"type\":\"join\",\"room\":\"\(String(repeating: "r", count: 65))\"}", "room name must be 1–64 characters of A–Z a–z 0–9 _ - ."),
        ("{\"type\":\"join\",\"room\":42}", "field 'room' must be a string"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"lock\":1}", "field 'lock' must be true or false"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"client\":\"\(String(repeating: "c", count: 65))\"}", "field 'client' must be at most 64 characters"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"client\":\"a\\nb\"}", "field 'client' must not contain control characters"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"driverKey\":\"has space\"}", "field 'driverKey' must be 1–128 characters of printable ASCII without spaces"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"driverKey\":\"\"}", "field 'driverKey' must be 1–128 characters of printable ASCII without spaces"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"scene\":\"\(String(repeating: "s", count: 65))\"}", "field 'scene' must be at most 64 characters"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"scene\":1}", "field 'scene' must be a string"),
        ("{\"type\":\"join\",\"room\":\"demo\",\"scene\":[\"demo\"]}", "field 'scene' must be a string"),
        // input: id and t.
        ("{\"type\":\"input\",\"t\":0,\"kind\":\"pointerCancel\"}", "missing field 'id'"),
        ("{\"type\":\"input\",\"id\":0,\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":-1,\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":1.5,\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":9007199254740993,\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":1e300,\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":\"1\",\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":true,\"t\":0,\"kind\":\"pointerCancel\"}", "field 'id' must be an integer in 1…9007199254740991"),
        ("{\"type\":\"input\",\"id\":1,\"kind\":\"pointerCancel\"}", "missing field 't'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":1e999,\"kind\":\"pointerCancel\"}", "number 1e999 is too large (numbers must be finite)"),
        ("{\"type\":\"input\",\"id\":1,\"t\":-1e999,\"kind\":\"pointerCancel\"}", "number -1e999 is too large (numbers must be finite)"),
        ("{\"type\":\"input\",\"id\":1,\"t\":NaN,\"kind\":\"pointerCancel\"}", "message is not valid JSON: unexpected character at byte 27"),
        ("{\"type\":\"input\",\"id\":1,\"t\":Infinity,\"kind\":\"pointerCancel\"}", "message is not valid JSON: unexpected character at byte 27"),
        ("{\"type\":\"input\",\"id\":1,\"t\":true,\"kind\":\"pointerCancel\"}", "field 't' must be a finite number"),
        ("{\"type\":\"input\",\"id\":1,\"t\":null,\"kind\":\"pointerCancel\"}", "field 't' must be a finite number"),
        // input: kind fields.
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"pointerDown\",\"y\":2}", "missing field 'x'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"pointerDown\",\"x\":\"1\",\"y\":2}", "field 'x' must be a finite number"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"pointerMove\",\"x\":false,\"y\":2}", "field 'x' must be a finite number"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"pointerUp\",\"x\":1,\"y\":2e6}", "field 'y' must be a number in -1000000…1000000"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"wheel\",\"dx\":0,\"dy\":1}", "missing field 'mode'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"wheel\",\"dx\":0,\"dy\":1,\"mode\":\"px\"}", "field 'mode' must be one of pixel, line, page; got 'px'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"key\",\"key\":\"tab\"}", "field 'key' must be one of arrowUp, arrowDown, pageUp, pageDown, space, shiftSpace, home, end; got 'tab'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"scrollToRow\",\"section\":-1,\"row\":0,\"position\":\"top\",\"animated\":true}", "field 'section' must be an integer in 0…1000000"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"scrollToRow\",\"section\":0,\"row\":0.5,\"position\":\"top\",\"animated\":true}", "field 'row' must be an integer in 0…1000000"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"scrollToRow\",\"section\":0,\"row\":0,\"position\":\"center\",\"animated\":true}", "field 'position' must be one of none, top, middle, bottom; got 'center'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"scrollToRow\",\"section\":0,\"row\":0,\"position\":\"top\"}", "missing field 'animated'"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"resize\",\"width\":0,\"height\":800}", "field 'width' must be a number in 100…4000"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"resize\",\"width\":-390,\"height\":800}", "field 'width' must be a number in 100…4000"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"resize\",\"width\":390,\"height\":4000.5}", "field 'height' must be a number in 100…4000"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"resize\",\"width\":390,\"height\":true}", "field 'height' must be a finite number"),
        ("{\"type\":\"input\",\"id\":1,\"t\":0,\"kind\":\"reducedMotion\",\"on\":1}", "field 'on' must be true or false"),
    ]

    @Test("malformed messages are refused with a message naming the problem and close 1008", arguments: invalid)
    func refusesMalformed(text: String, message: String) {
        #expect(throws: WireError(message, kind: .invalidMessage)) { try ClientMessageDecoder.decode(text) }
    }

    @Test("an over-size message is refused with 1009 before it is parsed")
    func refusesOversize() {
        let padding = String(repeating: " ", count: ScrollWire.maxMessageBytes)
        let text = #"{"type":"join","room":"demo"}"# + padding
        #expect(throws: WireError("message is 16413 bytes; the limit is 16384", kind: .tooBig)) {
            try ClientMessageDecoder.decode(text)
        }
        // Exactly at the limit is fine.
        let atLimit = #"{"type":"join","room":"demo"}"# + String(repeating: " ", count: ScrollWire.maxMessageBytes - 29)
        #expect(throws: Never.self) { try ClientMessageDecoder.decode(atLimit) }
        // Even garbage is refused for size, not syntax.
        let garbage = [UInt8](repeating: 0xFF, count: ScrollWire.maxMessageBytes + 1)
        #expect((try? ClientMessageDecoder.decode(garbage)) == nil)
        #expect(throws: WireError("message is 16385 bytes; the limit is 16384", kind: .tooBig)) {
            try ClientMessageDecoder.decode(garbage)
        }
    }

    @Test("invalid UTF-8 is refused with 1007")
    func refusesInvalidUTF8() {
        let bytes: [UInt8] = Array(#"{"type":"join","room":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: WireError("message is not valid UTF-8", kind: .invalidUTF8)) { try ClientMessageDecoder.decode(bytes) }
    }

    @Test("error descriptions carry the close code")
    func description() {
        #expect(WireError("missing field 'x'").description == "missing field 'x' (close 1008)")
    }

    @Test("each kind of fault closes with its own code", arguments: WireError.Kind.allCases)
    func kindsMapToCloseCodes(kind: WireError.Kind) {
        let expected: [WireError.Kind: UInt16] = [.invalidMessage: 1008, .tooBig: 1009, .invalidUTF8: 1007, .binaryNotAccepted: 1003]
        #expect(WireError("x", kind: kind).closeCode.rawValue == expected[kind])
    }
}
