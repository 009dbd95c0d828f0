import ScrollEngine
import Testing
@testable import ScrollWire

/// The shortcuts the room thread takes per input and per frame give what the long way gives.
@Suite("Decoder and texts table fast paths")
struct FastPathTests {
    // MARK: Numbers

    /// `t` of an input message as the decoder reads it.
    func decodedTime(_ spelling: String) throws -> Double {
        let message = try ClientMessageDecoder.decode(#"{"type":"input","id":1,"t":\#(spelling),"kind":"pointerCancel"}"#)
        guard case .input(let input) = message else { throw WireError("not an input") }
        return input.clientTime
    }

    @Test("every number spelling parses to the double the standard library parses, sign of zero included")
    func numbersAsTheStandardLibrary() throws {
        var random = SeededRandom(seed: 20)
        var spellings = ["0", "-0", "0.0", "-0.0", "1", "-1", "9007199254740991", "9007199254740992", "9007199254740993",
                         "123456789012345678901234567890", "0.1", "0.30000000000000004", "1e22", "1e23", "1.5e-7",
                         "0.0000000000000000000001", "0.00000000000000000000001", "4503599627370496.5",
                         "2.2250738585072014e-308", "1.7976931348623157e308", "12.50", "100.000000000000000000"]
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...19, using: &random)
            var text = Bool.random(using: &random) ? "-" : ""
            let point = Int.random(in: 0...digits, using: &random)
            for i in 0..<digits {
                if i == point, i > 0 { text += "." }
                let digit = i == 0 && digits > 1 && point != 1 ? Int.random(in: 1...9, using: &random) : Int.random(in: 0...9, using: &random)
                text += String(digit)
            }
            spellings.append(text)
            // And the shortest spelling of a random double, as clients write times and coordinates.
            spellings.append("\(Double.random(in: -1e6...1e6, using: &random))")
        }
        for text in spellings {
            let expected = try #require(Double(text), "\(text)")
            let got = try decodedTime(text)
            #expect(got.bitPattern == expected.bitPattern, "\(text): \(got) != \(expected)")
        }
    }

    // MARK: Objects

    @Test("field names that are equal as Swift strings are one field, however the object is stored")
    func duplicateNames() {
        for count in [2, 15, 16, 17, 40] {
            var fields = (0..<count - 1).map { #""f\#($0)":0"# }
            fields.append(#""f0":1"#)
            #expect(throws: WireError("duplicate field 'f0'")) {
                try JSONParser.parse(Array("{\(fields.joined(separator: ","))}".utf8))
            }
        }
        // "é" as one scalar and as e + combining accent: a dictionary held them as one key.
        #expect(throws: WireError("duplicate field 'e\u{301}'")) {
            try JSONParser.parse(Array(#"{"\#u{E9}":1,"e\#u{301}":2}"#.utf8))
        }
    }

    @Test("an object of thousands of fields is read whole, every field found by name")
    func largeObject() throws {
        let count = 2_000
        let text = "{" + (0..<count).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let reader = try FieldReader(message: JSONParser.parse(Array(text.utf8)))
        #expect(reader.fields.count == count)
        for i in stride(from: 0, to: count, by: 97) { #expect(try reader.number("k\(i)") == Double(i)) }
        #expect(!reader.has("k\(count)"))
    }

    @Test("objects are equal with the same fields in any order")
    func objectEquality() throws {
        let a = try JSONParser.parse(Array(#"{"a":1,"b":[true,null],"c":{"d":"x"}}"#.utf8))
        let b = try JSONParser.parse(Array(#"{"c":{"d":"x"},"a":1,"b":[true,null]}"#.utf8))
        let c = try JSONParser.parse(Array(#"{"c":{"d":"y"},"a":1,"b":[true,null]}"#.utf8))
        #expect(a == b)
        #expect(a != c)
    }

    // MARK: Texts

    /// A frame of the seed table, its texts made again from their bytes: equal, but other storage.
    func frameWithCopiedTexts(_ frame: EffectFrame) -> EffectFrame {
        func copy(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        var copied = frame
        for i in copied.rows.indices {
            copied.rows[i].title = copy(copied.rows[i].title + " (long enough not to be a small string)")
            copied.rows[i].subtitle = copy(copied.rows[i].subtitle)
            copied.rows[i].detail = copy(copied.rows[i].detail)
        }
        if let panel = copied.infoPanel {
            copied.infoPanel?.title = copy(panel.title + " (long enough not to be a small string)")
        }
        return copied
    }

    @Test("texts equal in other storage are known; changed ones go out again")
    func equalTextsInOtherStorage() {
        var frame = ScrollScene(configuration: SeedTableScene.configuration()).frame(at: 0)
        frame.infoPanel = InfoPanelState(rect: Rect(x: 0, y: 0, width: 10, height: 10), alpha: 1,
                                         title: "Monday, the first day of the week", detail: "9:41")
        var long = frame
        for i in long.rows.indices { long.rows[i].title += " (long enough not to be a small string)" }
        long.infoPanel?.title += " (long enough not to be a small string)"
        var table = WireTextTable()
        #expect(table.register(long).rows.count == long.rows.count)
        #expect(table.register(frameWithCopiedTexts(frame)).isEmpty)
        #expect(table.register(frameWithCopiedTexts(frame)).isEmpty)
        var changed = frameWithCopiedTexts(frame)
        changed.rows[2].detail += "!"
        #expect(table.register(changed).rows.map { $0.id } == [changed.rows[2].id])
    }

    @Test("a panel label renumbered by a texts message is not answered from the last lookup")
    func relabelledPanel() {
        var frame = ScrollScene(configuration: SeedTableScene.configuration()).frame(at: 0)
        frame.infoPanel = InfoPanelState(rect: Rect(x: 0, y: 0, width: 10, height: 10), alpha: 1, title: "Monday", detail: "9:41")
        var table = WireTextTable()
        #expect(table.register(frame).labels.map { $0.label } == [0])
        #expect(table.register(frame).isEmpty)
        #expect(table.labelNumber(title: "Monday", detail: "9:41") == 0)
        table.apply(WireTexts(labels: [PanelLabel(label: 0, title: "Tuesday", detail: "10:00")]))
        #expect(table.labelNumber(title: "Monday", detail: "9:41") == nil)
        #expect(table.labelNumber(title: "Tuesday", detail: "10:00") == 0)
        #expect(table.register(frame).labels.map { $0.label } == [1])
    }

    @Test("tables are equal by their entries, whatever was looked up last")
    func tableEquality() {
        var frame = ScrollScene(configuration: SeedTableScene.configuration()).frame(at: 0)
        frame.infoPanel = InfoPanelState(rect: Rect(x: 0, y: 0, width: 10, height: 10), alpha: 1, title: "Monday", detail: "9:41")
        var server = WireTextTable()
        let sent = server.register(frame)
        _ = server.register(frame)  // answered from the one-label cache
        #expect(WireTextTable(sent) == server)
    }

    @Test("a table scrolled down and back, its rows' texts changed on the way, encodes every frame as version 1 decodes it")
    func scrollingBothWays() throws {
        var scene = ScrollScene(configuration: DemoScene.configuration(rowCount: 400))
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        var id: UInt64 = 0
        var time = 0.0
        func frame(editing row: Int? = nil) throws -> EffectFrame {
            var frame = scene.frame(at: time)
            if let row, frame.rows.indices.contains(row) { frame.rows[row].detail += " (edited)" }
            return frame
        }
        // Down in long steps, then up again (rows coming in at the top), now and then a row's texts changed.
        for (dy, steps) in [(-9.0, 60), (7.0, 80)] {
            _ = try scene.apply(InputEvent(id: { id += 1; return id }(), time: time, kind: .pointerDown(Point(x: 200, y: 400))))
            for step in 1...steps {
                time += 16
                _ = try scene.apply(InputEvent(id: { id += 1; return id }(), time: time,
                                               kind: .pointerMoved(Point(x: 200, y: 400 + dy * Double(step)))))
                let shown = try frame(editing: step % 17 == 0 ? step % 5 : nil)
                let encoded = ServerMessageEncoderV2.frame(shown, input: nil, sentAt: time, texts: &table)
                if let texts = encoded.texts { _ = try decoder.decode(texts) }
                guard case .message(.frame(let decoded)) = try decoder.decode(encoded.frame) else {
                    Issue.record("not a frame"); return
                }
                #expect(decoded == (try ServerMessageV2Tests.v1Decoded(shown, input: nil, sentAt: time)))
            }
            time += 16
            _ = try scene.apply(InputEvent(id: { id += 1; return id }(), time: time, kind: .pointerUp(Point(x: 200, y: 400))))
            time += 3_000
        }
    }
}
