import ScrollEngine

/// Decodes server messages, for clients (the load generator, tests). Like the client decoder
/// it is total: any bytes give a message or a `WireError`. Unknown fields are ignored.
public enum ServerMessageDecoder {
    /// Decodes one server message (up to `ScrollWire.maxServerMessageBytes`).
    public static func decode(_ utf8: some Collection<UInt8>) throws(WireError) -> ServerMessage {
        let bytes = try MessageBytes.check(utf8, limit: ScrollWire.maxServerMessageBytes)
        let r = try FieldReader(message: try JSONParser.parse(bytes))
        let type = try r.string("type")
        switch type {
        case "frame": return .frame(try frame(r))
        case "snapshot": return .snapshot(try snapshot(r))
        case "rowMoved":
            return .rowMoved(RowMovedMessage(
                rowID: try r.int("rowId"), from: try indexPath(r.object("from")), to: try indexPath(r.object("to")),
                by: try r.string("by"), rowMoveVersion: try r.int("version")))
        case "presence":
            return .presence(viewers: try r.int("viewers"), driver: try r.optionalString("driver"),
                             locked: try r.optionalBool("locked") ?? false, exploring: r.has("exploring") ? try r.int("exploring") : 0,
                             granted: try granted(r))
        case "refused":
            return .refused(input: r.has("input") ? try r.id("input") : nil,
                            code: try r.optionalString("code") ?? "", reason: try r.string("reason"))
        case "error":
            return .error(try r.string("message"))
        case "resumed":
            return .resumed(try resumed(r))
        case "applied":
            return .applied(try applied(r))
        case "beat":
            return .beat(try beat(r))
        case "batch":
            return .batch(try batch(r))
        case "held":
            return .held(try held(r))
        case "pong":
            return .pong(id: try r.id("id"))
        default:
            guard let notice = try sharing(type, r) else {
                throw WireError("unknown message type '\(JSONParser.printable(type))'")
            }
            return .sharing(notice)
        }
    }

    /// Decodes one server message from a string.
    public static func decode(_ text: String) throws(WireError) -> ServerMessage {
        try decode(Array(text.utf8))
    }

    /// Fast path for load generators: `seq`, `sentAt` and `input` of a frame without decoding
    /// the whole frame. It reads only the fixed prefix `ServerMessageEncoder.frame` writes
    /// (`{"type":"frame","seq":…,"t":…,"sentAt":…,"input":…`), so it returns nil for anything
    /// else — other message types, other encoders' key order or whitespace, escaped viewer ids —
    /// and the caller can fall back to `decode`. Never traps.
    public static func frameHeader(_ utf8: some Collection<UInt8>) -> (seq: UInt64, sentAt: Double, input: AppliedInput?)? {
        // Scan contiguous bytes in place; this stays fast even where the generic caller is
        // not specialised (e.g. across a module boundary in a debug build).
        if let header = utf8.withContiguousStorageIfAvailable(frameHeader(in:)) { return header }
        return Array(utf8).withUnsafeBufferPointer(frameHeader(in:))
    }

    private static func frameHeader(in utf8: UnsafeBufferPointer<UInt8>) -> (seq: UInt64, sentAt: Double, input: AppliedInput?)? {
        var scanner = PrefixScanner(utf8)
        guard scanner.skip(#"{"type":"frame","seq":"#), let seq = scanner.unsignedInteger(),
              scanner.skip(#","t":"#), scanner.number() != nil,
              scanner.skip(#","sentAt":"#), let sentAt = scanner.number(),
              scanner.skip(#","input":"#) else { return nil }
        if scanner.skip("null") { return (seq, sentAt, nil) }
        guard scanner.skip(#"{"viewer":""#), let viewer = scanner.plainString(),
              scanner.skip(#","id":"#), let id = scanner.unsignedInteger(), scanner.skip("}") else { return nil }
        return (seq, sentAt, AppliedInput(viewer: viewer, id: id))
    }

    // MARK: - Pieces

    static func frame(_ r: FieldReader) throws(WireError) -> FrameMessage {
        var input: AppliedInput?
        if let i = try r.optionalObject("input") {
            input = AppliedInput(viewer: try i.string("viewer"), id: try i.id("id"))
        }
        let seq = UInt64(try r.integer("seq", in: 0...Int64(ScrollWire.maxSafeInteger)))
        return FrameMessage(
            seq: seq, time: try r.number("t"), sentAt: try r.number("sentAt"), input: input,
            phase: try r.string("phase"), animating: try r.bool("animating"), viewport: try size(r.object("viewport")),
            offset: try r.number("offset"), contentHeight: try r.number("contentHeight"),
            rows: try r.objects("rows", row),
            headers: try r.objects("headers") { (h: FieldReader) throws(WireError) in
                VisibleSectionHeader(section: try h.int("s"), y: try h.number("y"), height: try h.number("h"),
                                     title: try h.string("title"))
            },
            backgroundOffset: try r.object("background").number("offset"),
            layers: try r.objects("layers") { (l: FieldReader) throws(WireError) in
                LayerPosition(index: try l.int("i"), y: try l.number("y"))
            },
            indicator: try indicator(r.object("indicator")),
            panel: try r.optionalObject("panel").map { (p: FieldReader) throws(WireError) in
                let i = try indicator(p)
                return InfoPanelState(rect: i.rect, alpha: i.alpha, title: try p.string("title"), detail: try p.string("detail"))
            },
            lifted: try r.optionalObject("lifted").map { (l: FieldReader) throws(WireError) in
                LiftedRowState(row: try row(l), lift: try l.number("lift"), isSettling: try l.bool("settling"))
            },
            placeholder: try r.optionalObject("placeholder").map { (p: FieldReader) throws(WireError) in
                PlaceholderState(indexPath: try indexPath(p), y: try p.number("y"), height: try p.number("h"))
            })
    }

    static func snapshot(_ r: FieldReader) throws(WireError) -> SnapshotMessage {
        let s = try r.object("scene")
        let insets = try s.object("insets")
        let scene = SceneDescription(
            viewport: try size(s.object("viewport")),
            insets: EdgeInsets(top: try insets.number("top"), left: try insets.number("left"),
                               bottom: try insets.number("bottom"), right: try insets.number("right")),
            headerHeight: try s.number("headerHeight"),
            background: try s.optionalObject("background").map { (b: FieldReader) throws(WireError) in
                BackgroundImage(image: try b.string("image"), height: try b.number("height"))
            },
            layers: try s.objects("layers") { (l: FieldReader) throws(WireError) in
                ParallaxLayer(image: try l.string("image"), size: Size(width: try l.number("width"), height: try l.number("height")),
                              restingY: try l.number("restingY"), pullFactor: try l.number("pullFactor"),
                              scrollFactor: try l.number("scrollFactor"))
            },
            rowCount: try s.int("rowCount"),
            sections: try s.objects("sections") { (x: FieldReader) throws(WireError) in
                SectionOrder(title: try x.string("title"), headerHeight: try x.number("headerHeight"),
                             rowIDs: try x.integers("rows"))
            })
        return SnapshotMessage(
            protocolVersion: try r.int("protocol"), room: try r.string("room"), viewer: try r.string("viewer"),
            viewers: try r.int("viewers"), driver: try r.optionalString("driver"),
            sceneName: try r.optionalString("sceneName") ?? ScrollWire.sceneNameWhenAbsent, scene: scene,
            frame: try frame(r.object("frame")), driverKey: try r.optionalString("driverKey"),
            locked: try r.optionalBool("locked") ?? false, resumePoint: try resumePoint(r), replica: try replica(r))
    }

    private static func row(_ r: FieldReader) throws(WireError) -> VisibleRow {
        VisibleRow(indexPath: try indexPath(r), id: try r.int("id"), y: try r.number("y"), height: try r.number("h"),
                   title: try r.string("title"), subtitle: try r.string("subtitle"), detail: try r.string("detail"))
    }

    private static func indexPath(_ r: FieldReader) throws(WireError) -> IndexPath {
        IndexPath(section: try r.int("s"), row: try r.int("r"))
    }

    private static func size(_ r: FieldReader) throws(WireError) -> Size {
        Size(width: try r.number("width"), height: try r.number("height"))
    }

    private static func indicator(_ r: FieldReader) throws(WireError) -> IndicatorState {
        IndicatorState(rect: Rect(x: try r.number("x"), y: try r.number("y"), width: try r.number("w"), height: try r.number("h")),
                       alpha: try r.number("alpha"))
    }
}

/// Reads the fixed ASCII prefix of an encoder-produced frame, byte by byte, without
/// allocating beyond the few small strings it returns. Every read is bounds-checked.
private struct PrefixScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    mutating func skip(_ literal: StaticString) -> Bool {
        var i = index
        let matched = literal.withUTF8Buffer { lit -> Bool in
            for b in lit {
                guard i < bytes.endIndex, bytes[i] == b else { return false }
                i += 1
            }
            return true
        }
        if matched { index = i }
        return matched
    }

    /// Up to 16 decimal digits (anything longer is beyond the protocol's id range).
    mutating func unsignedInteger() -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        while let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
            digits += 1
            guard digits <= 16 else { return nil }
            value = value * 10 + UInt64(b - UInt8(ascii: "0"))
            index += 1
        }
        return digits > 0 ? value : nil
    }

    /// A number token (the characters JSON numbers use), parsed as a finite double.
    mutating func number() -> Double? {
        var text: [UInt8] = []
        while let b = current, text.count < 32,
              (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
            text.append(b)
            index += 1
        }
        guard !text.isEmpty, let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// A string body up to its closing quote, which it consumes; nil if it holds an escape or
    /// a control character, or exceeds 64 bytes (viewer ids are short and plain).
    mutating func plainString() -> String? {
        var text: [UInt8] = []
        while let b = current {
            index += 1
            if b == UInt8(ascii: "\"") { return String(validating: text, as: UTF8.self) }
            guard b != UInt8(ascii: "\\"), b >= 0x20, text.count < 64 else { return nil }
            text.append(b)
        }
        return nil
    }
}
