import Foundation
import ScrollEngine
import Testing
@testable import ScrollWire

@Suite("Server messages")
struct ServerMessageTests {
    @Test("a frame round-trips through the decoder, every field intact up to the wire's rounding")
    func frameRoundTrip() throws {
        for frame in [Fixtures.busyFrame, Fixtures.docFrame] {
            let bytes = ServerMessageEncoder.frame(frame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt)
            guard case .frame(let decoded) = try ServerMessageDecoder.decode(bytes) else {
                Issue.record("not a frame: \(bytes.text)"); return
            }
            #expect(decoded.effectFrame(insets: frame.insets) == frame.roundedForWire())
            #expect(decoded.input == Fixtures.docInput)
            #expect(decoded.sentAt == Fixtures.docSentAt)
            #expect(decoded.rowCount == frame.rows.count)
            #expect(decoded.scrollPhase == frame.phase)
            #expect(ServerMessageEncoder.encode(.frame(decoded)) == bytes)
        }
        // The doc's frame has nothing finer than 0.01; the busy one has.
        #expect(Fixtures.docFrame.roundedForWire() == Fixtures.docFrame)
        #expect(Fixtures.busyFrame.roundedForWire() != Fixtures.busyFrame)
    }

    @Test("frame numbers are rounded: points to 0.01, alphas and lift to 0.001, times to 0.01 ms; the scene is not")
    func frameRounding() throws {
        var frame = Fixtures.busyFrame
        frame.time = 41.02582899853587
        frame.contentOffset = 561.6189861263418
        frame.contentHeight = 64_000_000.125
        frame.rows[0].y = -48.745
        frame.rows[0].height = 0.004
        frame.sectionHeaders[0].y = 143.2577420647035
        frame.backgroundOffset = 64.84875356757621
        frame.parallaxLayers[0].y = -1812.8453547611778
        frame.viewport = Size(width: 390.333333, height: 844.005)
        frame.indicator = IndicatorState(rect: Rect(x: 384.001, y: 56.533622033402395, width: 3, height: 36.999), alpha: 0.3325482899881899)
        frame.infoPanel?.rect.origin.y = 50.533622033402395
        frame.infoPanel?.alpha = 0.0004
        frame.liftedRow?.lift = 0.9995
        frame.liftedRow?.row.y = 210.7549
        frame.placeholder?.y = 224.555
        let text = ServerMessageEncoder.frame(frame, input: nil, sentAt: 1763800005773.4568).text
        for fragment in [#""t":41.03,"sentAt":1763800005773.46,"#, #""viewport":{"width":390.33,"height":844.01}"#,
                         #""offset":561.62,"contentHeight":64000000.13,"#, #""y":-48.75,"h":0,"#,
                         #"{"s":0,"y":143.26,"h":28,"#, #""background":{"offset":64.85}"#, #"{"i":0,"y":-1812.85}"#,
                         #"{"i":1,"y":0}"#, #""indicator":{"x":384,"y":56.53,"w":3,"h":37,"alpha":0.333}"#,
                         #""panel":{"x":290,"y":50.53,"w":88,"h":48,"alpha":0,"#, #""y":210.75,"h":64,"#,
                         #""lift":1,"settling":false}"#, #""placeholder":{"s":0,"r":15,"y":224.56,"h":64}"#] {
            #expect(text.contains(fragment), "\(fragment) not in \(text)")
        }
        // The snapshot's scene keeps full precision, except its viewport, which is the frame's.
        var snapshot = Fixtures.snapshot(frame: frame)
        snapshot.configuration.parallaxLayers[0].pullFactor = 1.0 / 3.0
        snapshot.configuration.insets.top = 44.123456789
        let snapshotText = ServerMessageEncoder.snapshot(snapshot).text
        #expect(snapshotText.contains(#""scene":{"viewport":{"width":390.33,"height":844.01},"insets":{"top":44.123456789,"#))
        #expect(snapshotText.contains(#""pullFactor":0.3333333333333333,"#))
        #expect(snapshotText.contains(#""offset":561.62,"#))
    }

    @Test("a frame without input, panel, lifted row or placeholder writes nulls and round-trips")
    func frameWithNulls() throws {
        var frame = Fixtures.busyFrame
        frame.infoPanel = nil; frame.liftedRow = nil; frame.placeholder = nil; frame.lastInputID = nil
        frame.rows = []; frame.sectionHeaders = []; frame.parallaxLayers = []
        let bytes = ServerMessageEncoder.frame(frame, input: nil, sentAt: 0)
        let text = bytes.text
        #expect(text.contains(#""input":null"#))
        #expect(text.contains(#""rows":[],"headers":[]"#))
        #expect(text.hasSuffix(#""panel":null,"lifted":null,"placeholder":null}"#))
        guard case .frame(let decoded) = try ServerMessageDecoder.decode(bytes) else { Issue.record("not a frame"); return }
        #expect(decoded.effectFrame(insets: frame.insets) == frame.roundedForWire())
    }

    @Test("same frame, same bytes; the output is JSON that Foundation parses")
    func frameDeterministicAndValid() throws {
        let a = ServerMessageEncoder.frame(Fixtures.busyFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt)
        let b = ServerMessageEncoder.frame(Fixtures.busyFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt)
        #expect(a == b)
        let object = try JSONSerialization.jsonObject(with: Data(a)) as? [String: Any]
        #expect(object?["type"] as? String == "frame")
        #expect((object?["offset"] as? NSNumber)?.doubleValue == 812.51)
        let rows = object?["rows"] as? [[String: Any]]
        #expect(rows?[1]["title"] as? String == "Quote \" backslash \\ tab \t newline \n bell \u{07}")
        #expect(rows?[1]["subtitle"] as? String == "Café ☕️ 日本 😀")
        // Key order is fixed (the doc lists the fields in this order).
        let text = a.text
        let order = ["\"type\"", "\"seq\"", "\"t\"", "\"sentAt\"", "\"input\"", "\"phase\"", "\"animating\"", "\"viewport\"",
                     "\"offset\"", "\"contentHeight\"", "\"rows\"", "\"headers\"", "\"background\"", "\"layers\"",
                     "\"indicator\"", "\"panel\"", "\"lifted\"", "\"placeholder\""]
        let positions = order.compactMap { text.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count)
        #expect(positions == positions.sorted())
    }

    @Test("snapshot round-trips, with and without a driver key")
    func snapshotRoundTrip() throws {
        for driverKey in [nil, "Kq7-x_3"] {
            let snapshot = Fixtures.snapshot(frame: Fixtures.busyFrame, driverKey: driverKey)
            let bytes = ServerMessageEncoder.snapshot(snapshot)
            #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
            guard case .snapshot(let s) = try ServerMessageDecoder.decode(bytes) else { Issue.record("not a snapshot"); return }
            #expect(s.protocolVersion == 1)
            #expect(s.room == "demo" && s.viewer == "v7" && s.viewers == 3 && s.driver == nil)
            #expect(s.driverKey == driverKey)
            #expect(bytes.text.contains("driverKey") == (driverKey != nil))
            #expect(s.scene.viewport == snapshot.frame.viewport)
            #expect(s.scene.insets == snapshot.configuration.insets)
            #expect(s.scene.headerHeight == 180)
            #expect(s.scene.background == snapshot.configuration.background)
            #expect(s.scene.layers == snapshot.configuration.parallaxLayers)
            #expect(s.scene.rowCount == 4)
            #expect(s.scene.sections == [SectionOrder(title: "Mon 3 Nov", headerHeight: 28, rowIDs: [0, 2, 1, 3])])
            #expect(s.frame.effectFrame(insets: s.scene.insets) == snapshot.frame.roundedForWire())
            #expect(s.frame.input == Fixtures.docInput && s.frame.sentAt == Fixtures.docSentAt)
            #expect(ServerMessageEncoder.encode(.snapshot(s)) == bytes)
        }
    }

    @Test("snapshot names the room's scene right after the driver, and round-trips it")
    func snapshotSceneName() throws {
        var snapshot = Fixtures.snapshot()
        #expect(ServerMessageEncoder.snapshot(snapshot).text.contains(#""driver":null,"sceneName":"demo","locked":false,"scene":{"#))
        snapshot.sceneName = "seed-table"
        let bytes = ServerMessageEncoder.snapshot(snapshot)
        guard case .snapshot(let s) = try ServerMessageDecoder.decode(bytes) else { Issue.record("not a snapshot"); return }
        #expect(s.sceneName == "seed-table")
        #expect(ServerMessageEncoder.encode(.snapshot(s)) == bytes)
        // A name this version does not know still decodes (a newer server), as text only.
        snapshot.sceneName = "tomorrow"
        guard case .snapshot(let t) = try ServerMessageDecoder.decode(ServerMessageEncoder.snapshot(snapshot)) else {
            Issue.record("not a snapshot"); return
        }
        #expect(t.sceneName == "tomorrow")
    }

    @Test("the small messages round-trip")
    func smallMessages() throws {
        let cases: [([UInt8], ServerMessage)] = [
            (ServerMessageEncoder.rowMoved(rowID: 17, from: IndexPath(section: 0, row: 3), to: IndexPath(section: 1, row: 5), by: "v7", rowMoveVersion: 12),
             .rowMoved(RowMovedMessage(rowID: 17, from: IndexPath(section: 0, row: 3), to: IndexPath(section: 1, row: 5), by: "v7", rowMoveVersion: 12))),
            (ServerMessageEncoder.presence(viewers: 3, driver: "v7", locked: false), .presence(viewers: 3, driver: "v7", locked: false)),
            (ServerMessageEncoder.presence(viewers: 1, driver: nil, locked: true), .presence(viewers: 1, driver: nil, locked: true)),
            (ServerMessageEncoder.refused(input: 43, code: .driving, reason: "v7 is driving"),
             .refused(input: 43, code: "driving", reason: "v7 is driving")),
            (ServerMessageEncoder.refused(input: nil, code: .rateLimited, reason: "slow down"),
             .refused(input: nil, code: "rateLimited", reason: "slow down")),
            (ServerMessageEncoder.error(message: "field 'x' must be a finite number"), .error("field 'x' must be a finite number")),
        ]
        for (bytes, expected) in cases {
            #expect(try ServerMessageDecoder.decode(bytes) == expected, "\(bytes.text)")
            #expect(ServerMessageEncoder.encode(expected) == bytes)
            #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
        }
        #expect(ServerMessageEncoder.presence(viewers: 1, driver: nil, locked: false).text
                == #"{"type":"presence","viewers":1,"driver":null,"locked":false}"#)
    }

    @Test("frameHeader agrees with the full decoder")
    func frameHeaderAgrees() throws {
        var frame = Fixtures.busyFrame
        for (seq, input, sentAt) in [(UInt64(0), nil, 0.0), (1042, Fixtures.docInput, Fixtures.docSentAt),
                                     (9_007_199_254_740_991, AppliedInput(viewer: "v123456", id: 9_007_199_254_740_991), 1.5e-3)] {
            frame.sequence = seq
            let bytes = ServerMessageEncoder.frame(frame, input: input, sentAt: sentAt)
            guard case .frame(let full) = try ServerMessageDecoder.decode(bytes),
                  let header = ServerMessageDecoder.frameHeader(bytes) else {
                Issue.record("no header in \(bytes.text)"); continue
            }
            #expect(header.seq == full.seq && header.seq == seq)
            #expect(header.sentAt == full.sentAt && header.sentAt == WirePrecision.milliseconds.rounded(sentAt))
            #expect(header.input == full.input && header.input == input)
            // Works on any collection of bytes, e.g. a slice.
            #expect(ServerMessageDecoder.frameHeader(bytes[...])?.seq == seq)
        }
    }

    @Test("frameHeader returns nil for anything but an encoder-made frame")
    func frameHeaderRefuses() {
        let frame = ServerMessageEncoder.frame(Fixtures.docFrame, input: Fixtures.docInput, sentAt: 5)
        for bytes in [ServerMessageEncoder.presence(viewers: 1, driver: nil, locked: false), [], Array(frame.prefix(30)),
                      Array(#"{"type": "frame","seq":1,"t":0,"sentAt":0,"input":null}"#.utf8),
                      Array(#"{"type":"frame","seq":1,"t":0,"sentAt":1e999,"input":null}"#.utf8),
                      Array(#"{"type":"frame","seq":12345678901234567,"t":0,"sentAt":0,"input":null}"#.utf8),
                      Array(#"{"type":"frame","seq":1,"t":0,"sentAt":0,"input":{"viewer":"v\"7","id":1}}"#.utf8)] {
            #expect(ServerMessageDecoder.frameHeader(bytes) == nil, "\(bytes.text)")
        }
    }

    @Test("server messages with missing or wrong fields are refused, naming the field")
    func serverDecoderValidates() {
        let cases: [(String, String)] = [
            (#"{"type":"presence","driver":null}"#, "missing field 'viewers'"),
            (#"{"type":"rowMoved","rowId":1,"from":{"s":0},"to":{"s":0,"r":1},"by":"v1","version":1}"#, "missing field 'from.r'"),
            (#"{"type":"refused","input":0,"reason":"x"}"#, "field 'input' must be an integer in 1…9007199254740991"),
            (#"{"type":"hello"}"#, "unknown message type 'hello'"),
        ]
        for (text, message) in cases {
            #expect(throws: WireError(message)) { try ServerMessageDecoder.decode(text) }
        }
        var bytes = ServerMessageEncoder.frame(Fixtures.docFrame, input: nil, sentAt: 0).text
        bytes = bytes.replacingOccurrences(of: #""h":64"#, with: #""h":"64""#)
        #expect(throws: WireError("field 'rows[0].h' must be a finite number")) { try ServerMessageDecoder.decode(bytes) }
    }
}
