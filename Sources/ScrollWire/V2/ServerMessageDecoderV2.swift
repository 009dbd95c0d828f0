import ScrollEngine

/// Decodes version-2 server messages, for clients (the load generator, tests). It keeps the
/// texts the server has sent (`texts`): a snapshot replaces them, a `texts` message adds to
/// them, and frames are resolved against them into the same `FrameMessage` version 1 decodes.
/// Like the other decoders it is total: any bytes give a message or a `WireError`, and a message
/// that fails leaves the table as it was.
public struct ServerMessageDecoderV2: Sendable {
    /// The texts received so far (from the last snapshot on).
    public private(set) var texts = WireTextTable()

    /// A decoder that has received nothing yet.
    public init() {}

    /// Decodes one binary server message (up to `ScrollWire.maxServerMessageBytes`).
    public mutating func decode(_ bytes: some Collection<UInt8>) throws(WireError) -> ServerMessageV2 {
        try decode(bytes, trace: nil)
    }

    /// `decode`, calling `trace` with the name, byte range and value (as text; fixed-point numbers
    /// in their integer units) of every field as it is read, for annotated dumps of messages.
    public mutating func decode(_ bytes: some Collection<UInt8>,
                                trace: ((String, Range<Int>, String) -> Void)?) throws(WireError) -> ServerMessageV2 {
        let count = bytes.count
        guard count <= ScrollWire.maxServerMessageBytes else {
            throw WireError("message is \(count) bytes; the limit is \(ScrollWire.maxServerMessageBytes)", kind: .tooBig)
        }
        var r = BinaryReader(Array(bytes))
        r.trace = trace
        let typeByte = try r.byte("type")
        guard let type = ServerMessageTypeV2(rawValue: typeByte) else {
            throw WireError("unknown message type \(typeByte)")
        }
        let message: ServerMessageV2
        switch type {
        case .snapshot:
            let (snapshot, table) = try Self.snapshot(&r)
            try r.end("snapshot")
            texts = table
            message = .message(.snapshot(snapshot))
        case .frame:
            let frame = try Self.frame(&r, texts: texts, name: "frame")
            try r.end("frame")
            message = .message(.frame(frame))
        case .texts:
            let new = try Self.texts(&r, name: "texts")
            try r.end("texts")
            texts.apply(new)
            message = .texts(new)
        case .rowMoved:
            let moved = RowMovedMessage(
                rowID: try r.sint("rowId"), from: IndexPath(section: try r.uint("from.s"), row: try r.uint("from.r")),
                to: IndexPath(section: try r.uint("to.s"), row: try r.uint("to.r")), by: try r.string("by"),
                rowMoveVersion: try r.uint("version"))
            try r.end("rowMoved")
            message = .message(.rowMoved(moved))
        case .presence:
            let viewers = try r.uint("viewers")
            let flags = try Self.flags(&r, allowed: MessageFlagsV2.presenceAll)
            let driver = flags & MessageFlagsV2.driver != 0 ? try r.string("driver") : nil
            let sharing = try Self.presenceSharing(&r, flags: flags)
            try r.end("presence")
            message = .message(.presence(viewers: viewers, driver: driver, locked: flags & MessageFlagsV2.locked != 0,
                                         exploring: sharing.exploring, granted: sharing.granted))
        case .refused:
            let flags = try Self.flags(&r, allowed: MessageFlagsV2.refusedInput)
            let input = flags & MessageFlagsV2.refusedInput != 0 ? try Self.id(&r, "input") : nil
            let code = try r.string("code")
            let reason = try r.string("reason")
            try r.end("refused")
            message = .message(.refused(input: input, code: code, reason: reason))
        case .error:
            let text = try r.string("message")
            try r.end("error")
            message = .message(.error(text))
        case .resumed:
            let resumed = try Self.resumed(&r)
            try r.end("resumed")
            message = .message(.resumed(resumed))
        case .applied:
            let applied = try Self.applied(&r)
            try r.end("applied")
            message = .message(.applied(applied))
        case .beat:
            let beat = BeatMessage(time: try r.float64("t"), complete: try r.float64("complete"))
            try r.end("beat")
            message = .message(.beat(beat))
        case .hashedBeat:
            let beat = try Self.hashedBeat(&r)
            try r.end("beat")
            message = .message(.beat(beat))
        case .batch:
            let batch = try Self.batch(&r)
            try r.end("batch")
            message = .message(.batch(batch))
        case .held:
            let input = try Self.id(&r, "input")
            let time = try r.compact("t")
            let held = HeldMessage(input: input, time: time, at: try r.compact("at", from: time))
            try r.end("held")
            message = .message(.held(held))
        case .pong:
            let id = try Self.id(&r, "id")
            try r.end("pong")
            message = .message(.pong(id: id))
        case .asked, .granted, .denied, .expired, .follow:
            guard let notice = try Self.sharing(type, &r) else { throw WireError("unknown message type \(typeByte)") }
            message = .message(.sharing(notice))
        }
        return message
    }

    /// Fast path for load generators: `seq`, `sentAt` and `input` of a frame, read from the
    /// front of the message without decoding the rest or needing any texts. Nil for anything
    /// but a frame whose first fields are well formed. Never traps.
    public static func frameHeader(_ bytes: some Collection<UInt8>) -> (seq: UInt64, sentAt: Double, input: AppliedInput?)? {
        if let header = bytes.withContiguousStorageIfAvailable(frameHeader(in:)) { return header }
        return Array(bytes).withUnsafeBufferPointer(frameHeader(in:))
    }

    private static func frameHeader(in bytes: UnsafeBufferPointer<UInt8>) -> (seq: UInt64, sentAt: Double, input: AppliedInput?)? {
        // Only the header is copied: the fields it needs sit within its first few dozen bytes.
        var r = BinaryReader(Array(bytes.prefix(64)))
        guard (try? r.byte("type")) == ServerMessageTypeV2.frame.rawValue,
              let seq = try? r.uvarint("seq"), (try? r.svarint("t")) != nil,
              let sentAt = try? r.svarint("sentAt"), let flags = try? r.byte("flags"), (try? r.byte("phase")) != nil
        else { return nil }
        let sent = WirePrecision.milliseconds.value(units: sentAt)
        guard flags & FrameFlagsV2.input != 0 else { return (seq, sent, nil) }
        guard let viewer = try? r.string("input.viewer"), let id = try? r.uvarint("input.id") else { return nil }
        return (seq, sent, AppliedInput(viewer: viewer, id: id))
    }

    // MARK: - Pieces

    private static func flags(_ r: inout BinaryReader, allowed: UInt8, name: String = "flags") throws(WireError) -> UInt8 {
        let flags = try r.byte(name)
        guard flags & ~allowed == 0 else {
            throw WireError("\(name): reserved bits set in \(flags)")
        }
        return flags
    }

    private static func id(_ r: inout BinaryReader, _ name: String) throws(WireError) -> UInt64 {
        let id = try r.uvarint(name)
        guard ScrollWire.idRange.contains(id) else {
            throw WireError("\(name) must be an integer in 1…\(ScrollWire.maxSafeInteger)")
        }
        return id
    }

    private static func fixed(_ r: inout BinaryReader, _ precision: WirePrecision,
                              _ name: @autoclosure () -> String) throws(WireError) -> Double {
        precision.value(units: try r.svarint(name()))
    }

    private static func snapshot(_ r: inout BinaryReader) throws(WireError) -> (SnapshotMessage, WireTextTable) {
        let version = try r.uint("protocol")
        let room = try r.string("room")
        let viewer = try r.string("viewer")
        let viewers = try r.uint("viewers")
        let flags = try Self.flags(&r, allowed: MessageFlagsV2.snapshotAll)
        let driver = flags & MessageFlagsV2.driver != 0 ? try r.string("driver") : nil
        let driverKey = flags & MessageFlagsV2.driverKey != 0 ? try r.string("driverKey") : nil
        var resumePoint: ResumePoint?
        if flags & MessageFlagsV2.resumePoint != 0 {
            let life = try r.uvarint("life")
            guard ScrollWire.idRange.contains(life) else {
                throw WireError("life must be an integer in 1…\(ScrollWire.maxSafeInteger)")
            }
            resumePoint = ResumePoint(life: life, rowMoveVersion: try r.uint("moves"))
        }
        let replica = flags & MessageFlagsV2.replica != 0 ? try Self.replica(&r) : nil
        let sceneName = try r.string("sceneName")
        let insets = EdgeInsets(top: try r.float64("scene.insets.top"), left: try r.float64("scene.insets.left"),
                                bottom: try r.float64("scene.insets.bottom"), right: try r.float64("scene.insets.right"))
        let headerHeight = try r.float64("scene.headerHeight")
        var background: BackgroundImage?
        if flags & MessageFlagsV2.background != 0 {
            background = BackgroundImage(image: try r.string("scene.background.image"),
                                         height: try r.float64("scene.background.height"))
        }
        let layerCount = try r.count("scene.layers", minimumBytes: 41)
        var layers: [ParallaxLayer] = []
        layers.reserveCapacity(layerCount)
        for i in 0..<layerCount {
            layers.append(ParallaxLayer(
                image: try r.string("scene.layers[\(i)].image"),
                size: Size(width: try r.float64("scene.layers[\(i)].width"), height: try r.float64("scene.layers[\(i)].height")),
                restingY: try r.float64("scene.layers[\(i)].restingY"),
                pullFactor: try r.float64("scene.layers[\(i)].pullFactor"),
                scrollFactor: try r.float64("scene.layers[\(i)].scrollFactor")))
        }
        let sectionCount = try r.count("scene.sections", minimumBytes: 10)
        var sections: [SectionOrder] = []
        sections.reserveCapacity(sectionCount)
        var previousID: Int64 = -1
        var rowCount = 0
        for i in 0..<sectionCount {
            let title = try r.string("scene.sections[\(i)].title")
            let height = try r.float64("scene.sections[\(i)].headerHeight")
            let n = try r.count("scene.sections[\(i)].rows")
            var ids: [Int] = []
            ids.reserveCapacity(n)
            for j in 0..<n {
                let id = try BinaryReader.sum(previousID + 1, try r.svarint("scene.sections[\(i)].rows[\(j)]"),
                                              "scene.sections[\(i)].rows[\(j)]")
                ids.append(Int(id))
                previousID = id
            }
            rowCount += n
            sections.append(SectionOrder(title: title, headerHeight: height, rowIDs: ids))
        }
        let table = WireTextTable(try texts(&r, name: "texts"))
        let frame = try frame(&r, texts: table, name: "frame")
        let scene = SceneDescription(viewport: frame.viewport, insets: insets, headerHeight: headerHeight,
                                     background: background, layers: layers, rowCount: rowCount, sections: sections)
        let message = SnapshotMessage(protocolVersion: version, room: room, viewer: viewer, viewers: viewers,
                                      driver: driver, sceneName: sceneName, scene: scene, frame: frame,
                                      driverKey: driverKey, locked: flags & MessageFlagsV2.locked != 0,
                                      resumePoint: resumePoint, replica: replica)
        return (message, table)
    }

    /// The texts of a `texts` message without its type byte, or of a snapshot's texts part: for a
    /// replica that keeps the server's table without the whole decoder (the page's WebAssembly).
    public static func textsBody(_ bytes: [UInt8]) throws(WireError) -> WireTexts {
        var r = BinaryReader(bytes)
        let texts = try Self.texts(&r, name: "texts")
        try r.end("texts")
        return texts
    }

    private static func texts(_ r: inout BinaryReader, name: String) throws(WireError) -> WireTexts {
        var texts = WireTexts()
        let rowCount = try r.count("\(name).rows", minimumBytes: 5)
        texts.rows.reserveCapacity(rowCount)
        var previousID: Int64 = -1
        for i in 0..<rowCount {
            let id = try BinaryReader.sum(previousID + 1, try r.svarint("\(name).rows[\(i)].id"), "\(name).rows[\(i)].id")
            previousID = id
            texts.rows.append(RowTexts(
                id: Int(id), height: try fixed(&r, .points, "\(name).rows[\(i)].h"),
                title: try r.string("\(name).rows[\(i)].title"), subtitle: try r.string("\(name).rows[\(i)].subtitle"),
                detail: try r.string("\(name).rows[\(i)].detail")))
        }
        let sectionCount = try r.count("\(name).sections", minimumBytes: 2)
        texts.sections.reserveCapacity(sectionCount)
        for i in 0..<sectionCount {
            texts.sections.append(SectionTitle(section: try r.uint("\(name).sections[\(i)].s"),
                                               title: try r.string("\(name).sections[\(i)].title")))
        }
        let labelCount = try r.count("\(name).labels", minimumBytes: 3)
        texts.labels.reserveCapacity(labelCount)
        for i in 0..<labelCount {
            texts.labels.append(PanelLabel(label: try r.uint("\(name).labels[\(i)].label"),
                                           title: try r.string("\(name).labels[\(i)].title"),
                                           detail: try r.string("\(name).labels[\(i)].detail")))
        }
        return texts
    }

    private static func rowTexts(_ texts: WireTextTable, _ id: Int, _ name: String) throws(WireError) -> RowTexts {
        guard let row = texts.row(id) else {
            throw WireError("\(name): row \(id) has no texts; they come before the first frame that shows the row")
        }
        return row
    }

    private static func frame(_ r: inout BinaryReader, texts: WireTextTable, name: String) throws(WireError) -> FrameMessage {
        let pt = WirePrecision.points
        let seq = try r.uvarint("\(name).seq")
        let time = try fixed(&r, .milliseconds, "\(name).t")
        let sentAt = try fixed(&r, .milliseconds, "\(name).sentAt")
        let flags = try Self.flags(&r, allowed: FrameFlagsV2.all, name: "\(name).flags")
        guard flags & FrameFlagsV2.settling == 0 || flags & FrameFlagsV2.lifted != 0 else {
            throw WireError("\(name).flags: settling without a lifted row")
        }
        // A phase this version does not list reads as idle, as in version 1 (docs/protocol.md, `frame`).
        let phaseCode = try r.byte("\(name).phase")
        let phase = Int(phaseCode) < PhaseV2.phases.count ? PhaseV2.phases[Int(phaseCode)] : .idle
        var input: AppliedInput?
        if flags & FrameFlagsV2.input != 0 {
            input = AppliedInput(viewer: try r.string("\(name).input.viewer"), id: try Self.id(&r, "\(name).input.id"))
        }
        let viewport = Size(width: try fixed(&r, pt, "\(name).viewport.width"),
                            height: try fixed(&r, pt, "\(name).viewport.height"))
        let offset = try fixed(&r, pt, "\(name).offset")
        let contentHeight = try fixed(&r, pt, "\(name).contentHeight")

        let rowCount = try r.count("\(name).rows")
        var rows: [VisibleRow] = []
        rows.reserveCapacity(rowCount)
        var previous = (section: Int64(0), row: Int64(-1), id: Int64(-1), y: Int64(0), height: Int64(0))
        for i in 0..<rowCount {
            let field = "\(name).rows[\(i)]"
            let code = try r.byte("\(field).code")
            guard code & ~RowCodeV2.all == 0, code & RowCodeV2.pathMask != 3 else {
                throw WireError("\(field).code: reserved bits set in \(code)")
            }
            var section: Int64, row: Int64
            switch code & RowCodeV2.pathMask {
            case RowCodeV2.pathNext:
                section = previous.section
                row = try BinaryReader.sum(previous.row, 1, "\(field).r")
            case RowCodeV2.pathNextSection:
                section = try BinaryReader.sum(previous.section, 1, "\(field).s")
                row = 0
            default:
                section = Int64(try r.uvarint("\(field).s"))
                row = Int64(try r.uvarint("\(field).r"))
            }
            var id = try BinaryReader.sum(previous.id, 1, "\(field).id")
            if code & RowCodeV2.id != 0 { id = try BinaryReader.sum(id, try r.svarint("\(field).id"), "\(field).id") }
            var y = try BinaryReader.sum(previous.y, previous.height, "\(field).y")
            if code & RowCodeV2.y != 0 { y = try BinaryReader.sum(y, try r.svarint("\(field).y"), "\(field).y") }
            let known = try rowTexts(texts, Int(id), field)
            let height = code & RowCodeV2.height != 0 ? try r.svarint("\(field).h") : pt.wireUnits(known.height)
            rows.append(VisibleRow(indexPath: IndexPath(section: Int(section), row: Int(row)), id: Int(id),
                                   y: pt.value(units: y), height: pt.value(units: height),
                                   title: known.title, subtitle: known.subtitle, detail: known.detail))
            previous = (section, row, id, y, height)
        }

        let headerCount = try r.count("\(name).headers", minimumBytes: 3)
        var headers: [VisibleSectionHeader] = []
        headers.reserveCapacity(headerCount)
        for i in 0..<headerCount {
            let field = "\(name).headers[\(i)]"
            let section = try r.uint("\(field).s")
            let y = try fixed(&r, pt, "\(field).y")
            let height = try fixed(&r, pt, "\(field).h")
            guard let title = texts.sectionTitle(section) else {
                throw WireError("\(field): section \(section) has no title; it comes before the first frame that shows the header")
            }
            headers.append(VisibleSectionHeader(section: section, y: y, height: height, title: title))
        }
        let backgroundOffset = try fixed(&r, pt, "\(name).background.offset")
        let layerCount = try r.count("\(name).layers", minimumBytes: 2)
        var layers: [LayerPosition] = []
        layers.reserveCapacity(layerCount)
        var layerY: Int64 = 0
        for i in 0..<layerCount {
            let index = try r.uint("\(name).layers[\(i)].i")
            layerY = try BinaryReader.sum(layerY, try r.svarint("\(name).layers[\(i)].y"), "\(name).layers[\(i)].y")
            layers.append(LayerPosition(index: index, y: pt.value(units: layerY)))
        }
        let indicatorX = try r.svarint("\(name).indicator.x")
        let indicatorY = try r.svarint("\(name).indicator.y")
        let indicator = IndicatorState(
            rect: Rect(x: pt.value(units: indicatorX), y: pt.value(units: indicatorY),
                       width: try fixed(&r, pt, "\(name).indicator.w"), height: try fixed(&r, pt, "\(name).indicator.h")),
            alpha: try fixed(&r, .fraction, "\(name).indicator.alpha"))
        var panel: InfoPanelState?
        if flags & FrameFlagsV2.panel != 0 {
            let x = try BinaryReader.sum(indicatorX, try r.svarint("\(name).panel.x"), "\(name).panel.x")
            let y = try BinaryReader.sum(indicatorY, try r.svarint("\(name).panel.y"), "\(name).panel.y")
            let width = try fixed(&r, pt, "\(name).panel.w")
            let height = try fixed(&r, pt, "\(name).panel.h")
            let alpha = try fixed(&r, .fraction, "\(name).panel.alpha")
            let number = try r.uint("\(name).panel.label")
            guard let label = texts.label(number) else {
                throw WireError("\(name).panel.label: label \(number) is unknown; it comes before the first frame that shows it")
            }
            panel = InfoPanelState(rect: Rect(x: pt.value(units: x), y: pt.value(units: y), width: width, height: height),
                                   alpha: alpha, title: label.title, detail: label.detail)
        }
        var lifted: LiftedRowState?
        if flags & FrameFlagsV2.lifted != 0 {
            let path = IndexPath(section: try r.uint("\(name).lifted.s"), row: try r.uint("\(name).lifted.r"))
            let id = try r.sint("\(name).lifted.id")
            let y = try fixed(&r, pt, "\(name).lifted.y")
            let height = try fixed(&r, pt, "\(name).lifted.h")
            let lift = try fixed(&r, .fraction, "\(name).lifted.lift")
            let known = try rowTexts(texts, id, "\(name).lifted")
            lifted = LiftedRowState(
                row: VisibleRow(indexPath: path, id: id, y: y, height: height, title: known.title,
                                subtitle: known.subtitle, detail: known.detail),
                lift: lift, isSettling: flags & FrameFlagsV2.settling != 0)
        }
        var placeholder: PlaceholderState?
        if flags & FrameFlagsV2.placeholder != 0 {
            placeholder = PlaceholderState(
                indexPath: IndexPath(section: try r.uint("\(name).placeholder.s"), row: try r.uint("\(name).placeholder.r")),
                y: try fixed(&r, pt, "\(name).placeholder.y"), height: try fixed(&r, pt, "\(name).placeholder.h"))
        }
        return FrameMessage(
            seq: seq, time: time, sentAt: sentAt, input: input, phase: phase.rawValue,
            animating: flags & FrameFlagsV2.animating != 0, viewport: viewport, offset: offset,
            contentHeight: contentHeight, rows: rows, headers: headers, backgroundOffset: backgroundOffset,
            layers: layers, indicator: indicator, panel: panel, lifted: lifted, placeholder: placeholder)
    }
}
