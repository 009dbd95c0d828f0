import Testing
import ScrollEngine
@testable import ScrollWire

/// Version 2 (binary, texts once): every message round-trips, frames decode to what version 1
/// decodes, and texts go out exactly when a frame first needs them.
@Suite("Server messages, version 2")
struct ServerMessageV2Tests {
    /// The v1 decoding of a frame: what a v2 decoding must equal.
    static func v1Decoded(_ frame: EffectFrame, input: AppliedInput?, sentAt: Double) throws -> FrameMessage {
        guard case .frame(let f) = try ServerMessageDecoder.decode(ServerMessageEncoder.frame(frame, input: input, sentAt: sentAt)) else {
            throw WireError("not a frame")
        }
        return f
    }

    /// Encodes `frame` for a room whose texts are `table`, and decodes the texts message (if any)
    /// and the frame with `decoder`, as a viewer would.
    static func roundTrip(_ frame: EffectFrame, input: AppliedInput?, sentAt: Double, table: inout WireTextTable,
                          decoder: inout ServerMessageDecoderV2) throws -> FrameMessage {
        let encoded = ServerMessageEncoderV2.frame(frame, input: input, sentAt: sentAt, texts: &table)
        if let texts = encoded.texts {
            guard case .texts = try decoder.decode(texts) else { throw WireError("not texts") }
        }
        guard case .message(.frame(let f)) = try decoder.decode(encoded.frame) else { throw WireError("not a frame") }
        #expect(ServerMessageEncoderV2.encode(.message(.frame(f)), texts: decoder.texts) == encoded.frame)
        return f
    }

    @Test("a frame decodes to exactly what version 1 decodes, with every optional part present")
    func frameMatchesVersion1() throws {
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        let v2 = try Self.roundTrip(Fixtures.busyFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt,
                                    table: &table, decoder: &decoder)
        #expect(v2 == (try Self.v1Decoded(Fixtures.busyFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt)))
        #expect(v2.effectFrame(insets: Fixtures.busyFrame.insets) == Fixtures.busyFrame.roundedForWire())
        #expect(decoder.texts == table)
    }

    @Test("a frame without input, panel, lifted row or placeholder round-trips")
    func frameWithNothingOptional() throws {
        var frame = Fixtures.docFrame
        frame.infoPanel = nil
        frame.rows = []
        frame.sectionHeaders = []
        frame.parallaxLayers = []
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        let v2 = try Self.roundTrip(frame, input: nil, sentAt: 0, table: &table, decoder: &decoder)
        #expect(v2 == (try Self.v1Decoded(frame, input: nil, sentAt: 0)))
        #expect(table.all.isEmpty)
    }

    @Test("texts go out once: with the first frame that shows a row, header or panel label, never again")
    func textsOnce() throws {
        var table = WireTextTable()
        let first = ServerMessageEncoderV2.frame(Fixtures.docFrame, input: nil, sentAt: 0, texts: &table)
        var decoder = ServerMessageDecoderV2()
        guard let textsBytes = first.texts, case .texts(let texts) = try decoder.decode(textsBytes) else {
            Issue.record("the first frame needs texts"); return
        }
        #expect(texts.rows == [RowTexts(id: 12, height: 64, title: "Coffee with Ana", subtitle: "Blue Bottle, Hayes Valley", detail: "08:40")])
        #expect(texts.sections == [SectionTitle(section: 0, title: "Mon 3 Nov")])
        #expect(texts.labels == [PanelLabel(label: 0, title: "Mon 3 Nov", detail: "08:40")])
        // The same rows moved and a new seq: nothing new to send.
        var moved = Fixtures.docFrame
        moved.sequence += 1
        moved.rows[0].y -= 30.25
        moved.sectionHeaders[0].y = 40
        #expect(ServerMessageEncoderV2.frame(moved, input: nil, sentAt: 1, texts: &table).texts == nil)
        // A new row, and a panel showing another time: only those.
        moved.rows.append(VisibleRow(indexPath: IndexPath(section: 0, row: 13), id: 13, y: 130.25, height: 56,
                                     title: "Lunch", subtitle: "", detail: "12:30"))
        moved.infoPanel?.detail = "12:30"
        let second = ServerMessageEncoderV2.frame(moved, input: nil, sentAt: 2, texts: &table)
        guard let more = second.texts, case .texts(let added) = try decoder.decode(more) else {
            Issue.record("the new row needs texts"); return
        }
        #expect(added == WireTexts(rows: [RowTexts(id: 13, height: 56, title: "Lunch", subtitle: "", detail: "12:30")],
                                   labels: [PanelLabel(label: 1, title: "Mon 3 Nov", detail: "12:30")]))
        guard case .message(.frame(let f)) = try decoder.decode(second.frame) else { Issue.record("not a frame"); return }
        #expect(f == (try Self.v1Decoded(moved, input: nil, sentAt: 2)))
    }

    @Test("the texts ahead: rows on both sides of the visible ones across sections, with the panel labels, sent along only with new texts")
    func upcomingTexts() throws {
        let sections = (0..<3).map { s in
            TableSection(title: "S\(s)", rows: (0..<3).map { r in
                TableRow(id: s * 3 + r, title: "Row \(s * 3 + r)", group: "G\(s)", detail: "\(r):00", height: 44.125)
            })
        }
        var frame = Fixtures.docFrame
        frame.rows = [VisibleRow(indexPath: IndexPath(section: 1, row: 0), id: 3, y: 0, height: 44.125, title: "Row 3", subtitle: "", detail: "0:00"),
                      VisibleRow(indexPath: IndexPath(section: 1, row: 1), id: 4, y: 44.125, height: 44.125, title: "Row 4", subtitle: "", detail: "1:00")]
        frame.sectionHeaders = [VisibleSectionHeader(section: 1, y: 44, height: 28, title: "S1")]
        let upcoming = WireTextTable.upcoming(around: frame, in: sections, count: 3)
        #expect(upcoming.sections == [SectionTitle(section: 1, title: "S1"), SectionTitle(section: 2, title: "S2"),
                                      SectionTitle(section: 0, title: "S0")])
        #expect(upcoming.rows.map(\.id) == [5, 6, 7, 2, 1, 0])
        #expect(upcoming.rows.first?.height == 44.125, "unrounded: the table rounds")
        #expect(upcoming.panelLabels.map(\.title) == ["G1", "G1", "G1", "G2", "G2", "G0", "G0", "G0"])
        #expect(WireTextTable.upcoming(around: frame, in: sections, count: 10).rows.count == 7, "stops at both ends of the table")

        var table = WireTextTable()
        frame.infoPanel?.title = "G1"
        frame.infoPanel?.detail = "0:00"
        let first = table.register(frame) { upcoming }
        #expect(first.rows.map(\.id) == [3, 4, 5, 6, 7, 2, 1, 0])
        #expect(first.rows.allSatisfy { $0.height == 44.13 })
        #expect(first.labels.count == 8, "one label per row shown or ahead (each has its own group and detail)")
        #expect(first.sections.map(\.section) == [1, 2, 0])
        frame.rows = [VisibleRow(indexPath: IndexPath(section: 1, row: 2), id: 5, y: 0, height: 44.125, title: "Row 5", subtitle: "", detail: "2:00")]
        frame.infoPanel?.detail = "2:00"
        var called = false
        #expect(table.register(frame) { called = true; return upcoming }.isEmpty, "row 5 and its label came ahead")
        #expect(!called, "nothing new: the rows ahead are not even looked up")
    }

    @Test("a row whose texts change is sent again; a row drawn at another height writes it")
    func changedTextsAndHeights() throws {
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        var frame = Fixtures.docFrame
        _ = try Self.roundTrip(frame, input: nil, sentAt: 0, table: &table, decoder: &decoder)
        frame.rows[0].title = "Coffee with Ben"
        frame.rows[0].height = 70.125
        let encoded = ServerMessageEncoderV2.frame(frame, input: nil, sentAt: 0, texts: &table)
        #expect(encoded.texts != nil)
        _ = try decoder.decode(encoded.texts!)
        guard case .message(.frame(let f)) = try decoder.decode(encoded.frame) else { Issue.record("not a frame"); return }
        #expect(f.rows[0].title == "Coffee with Ben")
        #expect(f.rows[0].height == 70.13)
        // Same texts, another height (the row's registered height stays): the frame says so.
        frame.rows[0].height = 90
        let again = ServerMessageEncoderV2.frame(frame, input: nil, sentAt: 0, texts: &table)
        #expect(again.texts == nil)
        guard case .message(.frame(let g)) = try decoder.decode(again.frame) else { Issue.record("not a frame"); return }
        #expect(g == (try Self.v1Decoded(frame, input: nil, sentAt: 0)))
    }

    @Test("rows out of order, across sections, with gaps in ids and positions round-trip")
    func irregularRows() throws {
        var frame = Fixtures.docFrame
        frame.rows = [
            VisibleRow(indexPath: IndexPath(section: 2, row: 7), id: 40, y: -12.345, height: 44, title: "a", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 2, row: 8), id: 41, y: 31.655, height: 44, title: "b", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 3, row: 0), id: 7, y: 75.66, height: 60.5, title: "c", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 5, row: 3), id: 8, y: 500, height: 0, title: "d", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 5, row: 2), id: 9_007_199_254, y: 400, height: 1e-9, title: "e", subtitle: "", detail: ""),
            VisibleRow(indexPath: IndexPath(section: 0, row: 0), id: 0, y: 1_000_000, height: 3, title: "f", subtitle: "", detail: ""),
        ]
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        let v2 = try Self.roundTrip(frame, input: nil, sentAt: 0, table: &table, decoder: &decoder)
        #expect(v2 == (try Self.v1Decoded(frame, input: nil, sentAt: 0)))
    }

    @Test("the lifted row and placeholder round-trip, settling or not")
    func liftedRow() throws {
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        var frame = Fixtures.busyFrame
        for settling in [false, true] {
            frame.liftedRow?.isSettling = settling
            let v2 = try Self.roundTrip(frame, input: nil, sentAt: 5, table: &table, decoder: &decoder)
            #expect(v2 == (try Self.v1Decoded(frame, input: nil, sentAt: 5)))
            #expect(v2.lifted?.isSettling == settling)
        }
    }

    @Test("snapshot round-trips and carries every text the room has sent, so a late joiner draws later frames")
    func snapshotLateJoiner() throws {
        var table = WireTextTable()
        var early = ServerMessageDecoderV2()
        _ = try Self.roundTrip(Fixtures.busyFrame, input: nil, sentAt: 1, table: &table, decoder: &early)
        let (bytes, texts) = ServerMessageEncoderV2.snapshot(Fixtures.snapshot(), texts: &table)
        #expect(texts == nil, "the snapshot's frame shows nothing new")
        var late = ServerMessageDecoderV2()
        guard case .message(.snapshot(let s)) = try late.decode(bytes) else { Issue.record("not a snapshot"); return }
        guard case .snapshot(let v1) = try ServerMessageDecoder.decode(ServerMessageEncoder.snapshot(Fixtures.snapshot())) else {
            Issue.record("not a v1 snapshot"); return
        }
        var expected = v1
        expected.protocolVersion = 2
        #expect(s == expected)
        #expect(late.texts == table)
        #expect(ServerMessageEncoderV2.encode(.message(.snapshot(s)), texts: late.texts) == bytes)
        // The busy frame's rows reach the late joiner in no texts message: its snapshot had them.
        var next = Fixtures.busyFrame
        next.sequence += 1
        let encoded = ServerMessageEncoderV2.frame(next, input: nil, sentAt: 2, texts: &table)
        #expect(encoded.texts == nil)
        guard case .message(.frame(let f)) = try late.decode(encoded.frame) else { Issue.record("not a frame"); return }
        #expect(f == (try Self.v1Decoded(next, input: nil, sentAt: 2)))
    }

    @Test("a snapshot whose frame shows new texts hands them back for the room's other viewers")
    func snapshotWithNewTexts() throws {
        var table = WireTextTable()
        let (bytes, texts) = ServerMessageEncoderV2.snapshot(Fixtures.snapshot(driverKey: "k3y"), texts: &table)
        #expect(texts != nil)
        var other = ServerMessageDecoderV2()
        guard case .texts(let sent) = try other.decode(texts!) else { Issue.record("not texts"); return }
        #expect(sent == table.all)
        var joiner = ServerMessageDecoderV2()
        guard case .message(.snapshot(let s)) = try joiner.decode(bytes) else { Issue.record("not a snapshot"); return }
        #expect(s.driverKey == "k3y")
        #expect(s.frame == (try Self.v1Decoded(Fixtures.docFrame, input: Fixtures.docInput, sentAt: Fixtures.docSentAt)))
    }

    @Test("the small messages round-trip and decode as version 1 decodes them")
    func smallMessages() throws {
        let messages: [([UInt8], [UInt8])] = [
            (ServerMessageEncoderV2.rowMoved(rowID: 17, from: IndexPath(section: 0, row: 3), to: IndexPath(section: 1, row: 5), by: "v7", rowMoveVersion: 12),
             ServerMessageEncoder.rowMoved(rowID: 17, from: IndexPath(section: 0, row: 3), to: IndexPath(section: 1, row: 5), by: "v7", rowMoveVersion: 12)),
            (ServerMessageEncoderV2.presence(viewers: 3, driver: "v7", locked: false), ServerMessageEncoder.presence(viewers: 3, driver: "v7", locked: false)),
            (ServerMessageEncoderV2.presence(viewers: 300, driver: nil, locked: true), ServerMessageEncoder.presence(viewers: 300, driver: nil, locked: true)),
            (ServerMessageEncoderV2.refused(input: 43, code: .driving, reason: "v7 is driving; try again when the gesture ends"),
             ServerMessageEncoder.refused(input: 43, code: .driving, reason: "v7 is driving; try again when the gesture ends")),
            (ServerMessageEncoderV2.refused(input: nil, code: .rateLimited, reason: "slow down ☕️"),
             ServerMessageEncoder.refused(input: nil, code: .rateLimited, reason: "slow down ☕️")),
            (ServerMessageEncoderV2.error(message: "field 'x' must be a finite number"), ServerMessageEncoder.error(message: "field 'x' must be a finite number")),
        ]
        for (v2, v1) in messages {
            var decoder = ServerMessageDecoderV2()
            let decoded = try decoder.decode(v2)
            #expect(decoded == .message(try ServerMessageDecoder.decode(v1)))
            #expect(ServerMessageEncoderV2.encode(decoded, texts: decoder.texts) == v2)
        }
    }

    @Test("numbers are integers at version 1's precision; NaN is 0 and huge values are clamped, never trapping")
    func numbers() throws {
        var frame = Fixtures.docFrame
        frame.contentOffset = .nan
        frame.contentHeight = .infinity
        frame.backgroundOffset = -1e300
        frame.indicator.alpha = 0.0005
        frame.time = 1.005
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        let f = try Self.roundTrip(frame, input: nil, sentAt: -0.001, table: &table, decoder: &decoder)
        #expect(f.offset == 0)
        #expect(f.contentHeight == 1e13)
        #expect(f.backgroundOffset == -1e13)
        #expect(f.indicator.alpha == 0.001)
        #expect(f.time == 1)
        #expect(f.sentAt == 0 && f.sentAt.sign == .plus)
    }

    @Test("frameHeader agrees with the full decoder and needs no texts")
    func frameHeader() throws {
        var table = WireTextTable()
        for (input, seq) in [(Fixtures.docInput, UInt64(1042)), (nil, 9_007_199_254_740_991)] as [(AppliedInput?, UInt64)] {
            var frame = Fixtures.busyFrame
            frame.sequence = seq
            let bytes = ServerMessageEncoderV2.frame(frame, input: input, sentAt: Fixtures.docSentAt, texts: &table).frame
            let header = try #require(ServerMessageDecoderV2.frameHeader(bytes))
            #expect(header.seq == seq)
            #expect(header.sentAt == Fixtures.docSentAt)
            #expect(header.input == input)
            #expect(ServerMessageDecoderV2.frameHeader(bytes[...]) != nil)
        }
        #expect(ServerMessageDecoderV2.frameHeader(ServerMessageEncoderV2.error(message: "x")) == nil)
        #expect(ServerMessageDecoderV2.frameHeader([2, 0x80]) == nil)
        #expect(ServerMessageDecoderV2.frameHeader([]) == nil)
    }

    @Test("malformed messages are refused, naming the field, and leave the texts as they were")
    func decoderValidates() throws {
        var table = WireTextTable()
        let encoded = ServerMessageEncoderV2.frame(Fixtures.docFrame, input: Fixtures.docInput, sentAt: 1, texts: &table)
        let frame = encoded.frame
        let cases: [([UInt8], String)] = [
            ([], "type: message ends early, at byte 0"),
            ([0], "unknown message type 0"),
            ([20], "unknown message type 20"),
            ([19, 0], "id must be an integer in 1…9007199254740991"),
            ([18, 43], "t: message ends early, at byte 2"),
            ([18, 0, 0, 0], "input must be an integer in 1…9007199254740991"),
            (frame, "frame.rows[0]: row 12 has no texts; they come before the first frame that shows the row"),
            ([7, 2, 0x68, 0x69, 0], "error: 1 bytes after the end of the message"),
            ([7, 2, 0xC3, 0x28], "message: string is not valid UTF-8"),
            ([7, 5, 0x68], "message: string of 5 bytes runs past the end of the message"),
            ([5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0], "viewers: varint at byte 1 is longer than 8 bytes"),
            ([5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0], "viewers: 9007199254740992 is beyond 2^53 − 1"),
            ([5, 1, 0x10], "flags: reserved bits set in 16"),
            ([12, 0, 0, 2], "flags: reserved bits set in 2"),
            ([11, 2, 0x76, 0x39], "expiresIn: message ends early, at byte 4"),
            ([15, 0, 0], "follow: 1 bytes after the end of the message"),
            ([6, 1, 0, 0, 0], "input must be an integer in 1…9007199254740991"),
            ([3, 100, 1], "texts.rows: 100 entries cannot fit in the 1 bytes left"),
            ([2, 1, 0, 0, 0x40, 0], "frame.flags: reserved bits set in 64"),
            ([2, 1, 0, 0, 0x20, 0], "frame.flags: settling without a lifted row"),
        ]
        for (bytes, message) in cases {
            var decoder = ServerMessageDecoderV2()
            #expect(throws: WireError(message)) { try decoder.decode(bytes) }
        }
        // A texts message cut short changes nothing.
        var decoder = ServerMessageDecoderV2()
        let texts = try #require(encoded.texts)
        #expect(throws: WireError.self) { try decoder.decode(texts.dropLast()) }
        #expect(decoder.texts == WireTextTable())
        _ = try decoder.decode(texts)
        #expect(decoder.texts == table)
        // Every truncation of a valid frame fails cleanly.
        for n in 0..<frame.count {
            var d = decoder
            #expect(throws: WireError.self) { try d.decode(frame.prefix(n)) }
        }
    }

    @Test("random frames round-trip and match version 1")
    func randomFrames() throws {
        var rng = SeededRandom(seed: 0x2_0002)
        var table = WireTextTable()
        var decoder = ServerMessageDecoderV2()
        func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        for i in 0..<300 {
            var rows: [VisibleRow] = []
            var y = number(-100...100)
            var section = Int.random(in: 0...3, using: &rng), row = Int.random(in: 0...50, using: &rng)
            var id = Int.random(in: 0...3000, using: &rng)
            for _ in 0..<Int.random(in: 0...20, using: &rng) {
                let height = [44, 56, 64.5, 72, 88, number(0...200)].randomElement(using: &rng)!
                rows.append(VisibleRow(indexPath: IndexPath(section: section, row: row), id: id, y: y, height: height,
                                       title: "Row \(id)", subtitle: id % 3 == 0 ? "" : "sub \(id % 7)", detail: "\(id % 24):00"))
                y += Bool.random(using: &rng) ? height : number(-5...300)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: section += 1; row = 0
                case 1: section = Int.random(in: 0...9, using: &rng); row = Int.random(in: 0...99, using: &rng)
                default: row += 1
                }
                id = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 0...3000, using: &rng) : id + 1
            }
            var frame = Fixtures.busyFrame
            frame.sequence = UInt64(i)
            frame.time = number(0...1e7)
            frame.rows = rows
            frame.contentOffset = number(-500...200_000)
            frame.sectionHeaders = rows.isEmpty ? [] : [VisibleSectionHeader(section: rows[0].indexPath.section, y: number(0...100), height: 28,
                                                                            title: "Day \(rows[0].indexPath.section)")]
            frame.parallaxLayers = (0..<Int.random(in: 0...3, using: &rng)).map { LayerPosition(index: $0, y: number(-2000...100)) }
            frame.indicator = IndicatorState(rect: Rect(x: number(0...400), y: number(0...900), width: 3, height: number(3...100)), alpha: number(0...1))
            if Bool.random(using: &rng) { frame.infoPanel = nil } else {
                frame.infoPanel?.rect.origin.y = number(0...900)
                frame.infoPanel?.detail = "\(Int.random(in: 0...23, using: &rng)):\(Int.random(in: 10...59, using: &rng))"
            }
            if Bool.random(using: &rng) { frame.liftedRow = nil; frame.placeholder = nil }
            let input = Bool.random(using: &rng) ? AppliedInput(viewer: "v\(i)", id: UInt64(i + 1)) : nil
            let sentAt = 1.7e12 + number(0...1e9)
            let v2 = try Self.roundTrip(frame, input: input, sentAt: sentAt, table: &table, decoder: &decoder)
            #expect(v2 == (try Self.v1Decoded(frame, input: input, sentAt: sentAt)))
        }
    }
}
