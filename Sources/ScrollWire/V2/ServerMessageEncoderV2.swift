import ScrollEngine

/// Encodes server → client messages of protocol version 2 (subprotocol `scrollcast.v2`,
/// docs/protocol.md "Version 2"): binary, numbers as integers at version 1's precision
/// (`WirePrecision`), and texts sent once per room rather than in every frame.
///
/// Frames name rows, section headers and the panel's texts by number; the texts themselves go
/// out in a `texts` message the first time a frame needs them, and all of them in a snapshot.
/// The room's `WireTextTable` keeps track: `frame(_:input:sentAt:texts:)` registers the frame
/// in it and returns both the texts message (if anything was new) and the frame. Frames depend
/// on no other frame, only on the texts every viewer has, so a viewer that skipped frames draws
/// the newest correctly. Output is deterministic: the same frame and table give the same bytes.
public enum ServerMessageEncoderV2 {
    /// A frame and, when it shows texts the room's viewers have not been sent, the `texts`
    /// message that must reach them (reliably) before it.
    public struct EncodedFrame: Sendable {
        /// The `texts` message to send to every version-2 viewer first, or nil.
        public var texts: [UInt8]?
        /// The `frame` message.
        public var frame: [UInt8]
    }

    /// Registers `frame`'s texts in `texts` and encodes the frame (and the new texts, if any).
    /// `input` and `sentAt` are as in version 1's `ServerMessageEncoder.frame`; `ahead` gives
    /// rows about to be shown, sent along when texts go out anyway (`WireTextTable.register`).
    public static func frame(_ frame: EffectFrame, input: AppliedInput?, sentAt: Double,
                             texts: inout WireTextTable, ahead: () -> UpcomingTexts = { UpcomingTexts() }) -> EncodedFrame {
        var positions: [Int] = []
        let new = texts.register(frame, ahead: ahead, positions: &positions)
        var w = BinaryWriter(capacity: 64 + frame.rows.count * 4)
        w.byte(ServerMessageTypeV2.frame.rawValue)
        writeFrame(frame, input: input, sentAt: sentAt, texts: texts, rowPositions: positions, into: &w)
        return EncodedFrame(texts: new.isEmpty ? nil : self.texts(new), frame: w.bytes)
    }

    /// A snapshot for a joining viewer, and the `texts` message the room's other version-2
    /// viewers need when the snapshot's frame showed something new (nil otherwise). The
    /// snapshot carries the whole table, so the joiner can draw every later frame.
    public static func snapshot(_ snapshot: Snapshot, texts: inout WireTextTable) -> (snapshot: [UInt8], texts: [UInt8]?) {
        let new = texts.register(snapshot.frame)
        return (self.snapshot(snapshot, table: texts), new.isEmpty ? nil : self.texts(new))
    }

    /// A `texts` message.
    public static func texts(_ texts: WireTexts) -> [UInt8] {
        var w = BinaryWriter(capacity: 8 + texts.rows.count * 48 + texts.labels.count * 16)
        w.byte(ServerMessageTypeV2.texts.rawValue)
        writeTexts(texts, into: &w)
        return w.bytes
    }

    /// A `rowMoved` message (sent reliably to every viewer); `rowMoveVersion` goes as `version`.
    public static func rowMoved(rowID: Int, from: IndexPath, to: IndexPath, by viewer: String, rowMoveVersion: Int) -> [UInt8] {
        var w = BinaryWriter(capacity: 16 + viewer.utf8.count)
        w.byte(ServerMessageTypeV2.rowMoved.rawValue)
        w.svarint(rowID)
        w.uvarint(from.section); w.uvarint(from.row)
        w.uvarint(to.section); w.uvarint(to.row)
        w.string(viewer)
        w.uvarint(rowMoveVersion)
        return w.bytes
    }

    /// A `presence` message.
    /// `exploring` and `granted` (docs/protocol.md, "Sharing") are written only when not 0 and
    /// not empty.
    public static func presence(viewers: Int, driver: String?, locked: Bool, exploring: Int = 0,
                                granted: [String] = []) -> [UInt8] {
        var w = BinaryWriter(capacity: 8 + (driver?.utf8.count ?? 0) + granted.count * 4)
        w.byte(ServerMessageTypeV2.presence.rawValue)
        w.uvarint(viewers)
        w.byte((driver != nil ? MessageFlagsV2.driver : 0) | (locked ? MessageFlagsV2.locked : 0)
               | (exploring > 0 ? MessageFlagsV2.exploring : 0) | (granted.isEmpty ? 0 : MessageFlagsV2.granted))
        if let driver { w.string(driver) }
        w.presenceSharing(exploring: exploring, granted: granted)
        return w.bytes
    }

    /// A `refused` message: `input` is the refused input's id (nil when the refusal is not
    /// about one input).
    public static func refused(input: UInt64?, code: RefusalCode, reason: String) -> [UInt8] {
        refused(input: input, code: code.rawValue, reason: reason)
    }

    static func refused(input: UInt64?, code: String, reason: String) -> [UInt8] {
        var w = BinaryWriter(capacity: 16 + code.utf8.count + reason.utf8.count)
        w.byte(ServerMessageTypeV2.refused.rawValue)
        w.byte(input != nil ? MessageFlagsV2.refusedInput : 0)
        if let input { w.uvarint(input) }
        w.string(code)
        w.string(reason)
        return w.bytes
    }

    /// An `error` message, sent just before closing the connection.
    public static func error(message: String) -> [UInt8] {
        var w = BinaryWriter(capacity: 4 + message.utf8.count)
        w.byte(ServerMessageTypeV2.error.rawValue)
        w.string(message)
        return w.bytes
    }

    /// Re-encodes a decoded message with the texts the decoder held when it decoded it
    /// (`ServerMessageDecoderV2.texts`; for a snapshot, the table the snapshot brought):
    /// `encode(decode(bytes)) == bytes` for anything this encoder produced. For tests and proxies.
    public static func encode(_ message: ServerMessageV2, texts table: WireTextTable) -> [UInt8] {
        switch message {
        case .texts(let texts):
            return self.texts(texts)
        case .message(.frame(let f)):
            var w = BinaryWriter(capacity: 64 + f.rows.count * 4)
            w.byte(ServerMessageTypeV2.frame.rawValue)
            writeFrame(f.effectFrame(insets: .zero), input: f.input, sentAt: f.sentAt, texts: table, into: &w)
            return w.bytes
        case .message(.snapshot(let s)):
            return snapshot(s.encodable, table: table)
        case .message(.rowMoved(let m)):
            return rowMoved(rowID: m.rowID, from: m.from, to: m.to, by: m.by, rowMoveVersion: m.rowMoveVersion)
        case .message(.presence(let viewers, let driver, let locked, let exploring, let granted)):
            return presence(viewers: viewers, driver: driver, locked: locked, exploring: exploring, granted: granted)
        case .message(.sharing(let notice)):
            return sharing(notice)
        case .message(.refused(let input, let code, let reason)):
            return refused(input: input, code: code, reason: reason)
        case .message(.error(let message)):
            return error(message: message)
        case .message(.resumed(let m)):
            return resumed(m)
        case .message(.applied(let m)):
            return applied(m)
        case .message(.beat(let m)):
            return beat(m)
        case .message(.batch(let m)):
            return batch(m)
        case .message(.held(let m)):
            return held(m)
        case .message(.pong(let id)):
            return pong(id: id)
        }
    }

    // MARK: - Pieces

    static func snapshot(_ snapshot: Snapshot, table: WireTextTable) -> [UInt8] {
        let configuration = snapshot.configuration
        let rowCount = snapshot.sections.reduce(0) { $0 + $1.rows.count }
        let all = table.all
        // Sized to fit the usual case in one allocation: a snapshot is encoded per joiner.
        let sectionBytes = snapshot.sections.reduce(0) { $0 + $1.title.utf8.count + 11 }
        var w = BinaryWriter(capacity: 256 + rowCount * 2 + sectionBytes + all.rows.count * 48 + snapshot.frame.rows.count * 4)
        w.byte(ServerMessageTypeV2.snapshot.rawValue)
        w.uvarint(WireVersion.v2.rawValue)
        w.string(snapshot.room)
        w.string(snapshot.viewer)
        w.uvarint(snapshot.viewers)
        var flags: UInt8 = 0
        if snapshot.driver != nil { flags |= MessageFlagsV2.driver }
        if snapshot.locked { flags |= MessageFlagsV2.locked }
        if snapshot.driverKey != nil { flags |= MessageFlagsV2.driverKey }
        if configuration.background != nil { flags |= MessageFlagsV2.background }
        if snapshot.resumePoint != nil { flags |= MessageFlagsV2.resumePoint }
        if snapshot.replica != nil { flags |= MessageFlagsV2.replica }
        w.byte(flags)
        if let driver = snapshot.driver { w.string(driver) }
        if let key = snapshot.driverKey { w.string(key) }
        if let point = snapshot.resumePoint {
            w.uvarint(point.life)
            w.uvarint(point.rowMoveVersion)
        }
        writeReplica(snapshot.replica, into: &w)
        w.string(snapshot.sceneName)
        w.float64(configuration.insets.top)
        w.float64(configuration.insets.left)
        w.float64(configuration.insets.bottom)
        w.float64(configuration.insets.right)
        w.float64(configuration.headerHeight)
        if let background = configuration.background {
            w.string(background.image)
            w.float64(background.height)
        }
        w.uvarint(configuration.parallaxLayers.count)
        for layer in configuration.parallaxLayers {
            w.string(layer.image)
            w.float64(layer.size.width)
            w.float64(layer.size.height)
            w.float64(layer.restingY)
            w.float64(layer.pullFactor)
            w.float64(layer.scrollFactor)
        }
        w.uvarint(snapshot.sections.count)
        var previousID: Int64 = -1
        for section in snapshot.sections {
            w.string(section.title)
            w.float64(section.headerHeight)
            w.uvarint(section.rows.count)
            for row in section.rows {
                let id = Int64(row.id)
                w.svarint(id &- (previousID &+ 1))
                previousID = id
            }
        }
        writeTexts(all, into: &w)
        writeFrame(snapshot.frame, input: snapshot.frameInput, sentAt: snapshot.frameSentAt, texts: table, into: &w)
        return w.bytes
    }

    static func writeTexts(_ texts: WireTexts, into w: inout BinaryWriter) {
        w.uvarint(texts.rows.count)
        var previousID: Int64 = -1
        for row in texts.rows {
            let id = Int64(row.id)
            w.svarint(id &- (previousID &+ 1))
            previousID = id
            w.fixed(row.height, .points)
            w.string(row.title)
            w.string(row.subtitle)
            w.string(row.detail)
        }
        w.uvarint(texts.sections.count)
        for section in texts.sections {
            w.uvarint(section.section)
            w.string(section.title)
        }
        w.uvarint(texts.labels.count)
        for label in texts.labels {
            w.uvarint(label.label)
            w.string(label.title)
            w.string(label.detail)
        }
    }

    /// The frame's body (everything after the type byte). Texts come from `texts`, which must
    /// hold every row, section and panel label the frame shows (`register` sees to that).
    /// `rowPositions`, when given, are where `register` found the frame's rows in `texts`.
    static func writeFrame(_ frame: EffectFrame, input: AppliedInput?, sentAt: Double, texts: WireTextTable,
                           rowPositions: [Int]? = nil, into w: inout BinaryWriter) {
        let pt = WirePrecision.points
        let fraction = WirePrecision.fraction
        w.uvarint(frame.sequence)
        w.fixed(frame.time, .milliseconds)
        w.fixed(sentAt, .milliseconds)
        var flags: UInt8 = 0
        if frame.isAnimating { flags |= FrameFlagsV2.animating }
        // `if case .some` rather than `!= nil`: Embedded Swift compiles `!= nil` on these
        // Equatable optionals as a full comparison, pulling String's Unicode tables into the page's module.
        if case .some = input { flags |= FrameFlagsV2.input }
        if case .some = frame.infoPanel { flags |= FrameFlagsV2.panel }
        if let lifted = frame.liftedRow {
            flags |= FrameFlagsV2.lifted
            if lifted.isSettling { flags |= FrameFlagsV2.settling }
        }
        if case .some = frame.placeholder { flags |= FrameFlagsV2.placeholder }
        w.byte(flags)
        w.byte(PhaseV2.code(frame.phase))
        if let input {
            w.string(input.viewer)
            w.uvarint(input.id)
        }
        w.fixed(frame.viewport.width, pt)
        w.fixed(frame.viewport.height, pt)
        w.fixed(frame.contentOffset, pt)
        w.fixed(frame.contentHeight, pt)

        w.uvarint(frame.rows.count)
        var previous = (section: 0, row: -1, id: Int64(-1), y: Int64(0), height: Int64(0))
        // Through the buffer, so that no row is copied out (with its three texts) to be read.
        frame.rows.withUnsafeBufferPointer { rows in for k in rows.indices {
            let section = rows[k].indexPath.section, index = rows[k].indexPath.row
            let id = Int64(rows[k].id)
            let y = pt.wireUnits(rows[k].y), height = pt.wireUnits(rows[k].height)
            var code: UInt8
            if section == previous.section, index == previous.row &+ 1 {
                code = RowCodeV2.pathNext
            } else if section == previous.section &+ 1, index == 0 {
                code = RowCodeV2.pathNextSection
            } else {
                code = RowCodeV2.pathExplicit
            }
            let expectedID = previous.id &+ 1
            let expectedY = previous.y &+ previous.height
            if id != expectedID { code |= RowCodeV2.id }
            if y != expectedY { code |= RowCodeV2.y }
            let known = rowPositions.map { texts.rowHeight(atPosition: $0[k]) } ?? texts.rowHeight(rows[k].id)
            if known.map({ pt.wireUnits($0) }) != height { code |= RowCodeV2.height }
            w.byte(code)
            if code & RowCodeV2.pathMask == RowCodeV2.pathExplicit {
                w.uvarint(section)
                w.uvarint(index)
            }
            if code & RowCodeV2.id != 0 { w.svarint(id &- expectedID) }
            if code & RowCodeV2.y != 0 { w.svarint(y &- expectedY) }
            if code & RowCodeV2.height != 0 { w.svarint(height) }
            previous = (section, index, id, y, height)
        } }

        w.uvarint(frame.sectionHeaders.count)
        for header in frame.sectionHeaders {
            w.uvarint(header.section)
            w.fixed(header.y, pt)
            w.fixed(header.height, pt)
        }
        w.fixed(frame.backgroundOffset, pt)
        w.uvarint(frame.parallaxLayers.count)
        var previousLayerY: Int64 = 0
        for layer in frame.parallaxLayers {
            let y = pt.wireUnits(layer.y)
            w.uvarint(layer.index)
            w.svarint(y &- previousLayerY)
            previousLayerY = y
        }
        let indicator = frame.indicator.rect
        let indicatorX = pt.wireUnits(indicator.origin.x), indicatorY = pt.wireUnits(indicator.origin.y)
        w.svarint(indicatorX)
        w.svarint(indicatorY)
        w.fixed(indicator.size.width, pt)
        w.fixed(indicator.size.height, pt)
        w.fixed(frame.indicator.alpha, fraction)
        if let panel = frame.infoPanel {
            w.svarint(pt.wireUnits(panel.rect.origin.x) &- indicatorX)
            w.svarint(pt.wireUnits(panel.rect.origin.y) &- indicatorY)
            w.fixed(panel.rect.size.width, pt)
            w.fixed(panel.rect.size.height, pt)
            w.fixed(panel.alpha, fraction)
            w.uvarint(texts.labelNumber(title: panel.title, detail: panel.detail) ?? 0)
        }
        if let lifted = frame.liftedRow {
            w.uvarint(lifted.row.indexPath.section)
            w.uvarint(lifted.row.indexPath.row)
            w.svarint(lifted.row.id)
            w.fixed(lifted.row.y, pt)
            w.fixed(lifted.row.height, pt)
            w.fixed(lifted.lift, fraction)
        }
        if let placeholder = frame.placeholder {
            w.uvarint(placeholder.indexPath.section)
            w.uvarint(placeholder.indexPath.row)
            w.fixed(placeholder.y, pt)
            w.fixed(placeholder.height, pt)
        }
    }
}
