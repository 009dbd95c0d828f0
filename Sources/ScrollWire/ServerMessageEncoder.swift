import ScrollEngine

/// Encodes server → client messages as compact JSON bytes (docs/protocol.md, "Server → client").
///
/// A frame is encoded once per room and tick and the same bytes go to every viewer, so the
/// output is deterministic: identical inputs give identical bytes (fixed key order, one number
/// spelling — see `JSONWriter.number` — and one string escaping). A frame's coordinates, alphas
/// and times are rounded to a fixed number of decimals (`WirePrecision`; what a client decodes
/// is `EffectFrame.roundedForWire()`); the snapshot's scene is written at full precision, apart
/// from its viewport, which is the frame's. Non-finite numbers are never written: NaN becomes 0
/// and ±infinity the largest finite double.
public enum ServerMessageEncoder {
    /// A `frame` message. `input` is the last input applied from the driving viewer; `sentAt`
    /// is the server's wall clock in ms since the Unix epoch. Numbers are rounded per
    /// `WirePrecision` (a client decodes `frame.roundedForWire()`).
    public static func frame(_ frame: EffectFrame, input: AppliedInput?, sentAt: Double) -> [UInt8] {
        var w = JSONWriter(capacity: 512 + frame.rows.count * 160)
        writeFrame(frame, input: input, sentAt: sentAt, into: &w)
        return w.bytes
    }

    /// A `snapshot` message: the scene, current row order and latest frame for a joining viewer.
    public static func snapshot(_ snapshot: Snapshot) -> [UInt8] {
        let rowCount = snapshot.sections.reduce(0) { $0 + $1.rows.count }
        var w = JSONWriter(capacity: 1024 + rowCount * 8 + snapshot.frame.rows.count * 160)
        w.beginObject()
        w.key("type"); w.string("snapshot")
        w.key("protocol"); w.integer(ScrollWire.version)
        w.key("room"); w.string(snapshot.room)
        w.key("viewer"); w.string(snapshot.viewer)
        w.key("viewers"); w.integer(snapshot.viewers)
        w.key("driver"); w.optionalString(snapshot.driver)
        w.key("sceneName"); w.string(snapshot.sceneName)
        w.key("locked"); w.bool(snapshot.locked)
        w.key("scene")
        w.beginObject()
        let configuration = snapshot.configuration
        // The viewport is the frame's (it is one value), so it is rounded like the frame's.
        w.key("viewport"); writeSize(snapshot.frame.viewport, into: &w)
        w.key("insets")
        w.beginObject()
        w.key("top"); w.number(configuration.insets.top)
        w.key("left"); w.number(configuration.insets.left)
        w.key("bottom"); w.number(configuration.insets.bottom)
        w.key("right"); w.number(configuration.insets.right)
        w.endObject()
        w.key("headerHeight"); w.number(configuration.headerHeight)
        w.key("background")
        w.optionalObject(configuration.background) { background, w in
            w.key("image"); w.string(background.image)
            w.key("height"); w.number(background.height)
        }
        w.key("layers")
        w.beginArray()
        for layer in configuration.parallaxLayers {
            w.beginObject()
            w.key("image"); w.string(layer.image)
            w.key("width"); w.number(layer.size.width)
            w.key("height"); w.number(layer.size.height)
            w.key("restingY"); w.number(layer.restingY)
            w.key("pullFactor"); w.number(layer.pullFactor)
            w.key("scrollFactor"); w.number(layer.scrollFactor)
            w.endObject()
        }
        w.endArray()
        w.key("rowCount"); w.integer(rowCount)
        w.key("sections")
        w.beginArray()
        for section in snapshot.sections {
            w.beginObject()
            w.key("title"); w.string(section.title)
            w.key("headerHeight"); w.number(section.headerHeight)
            w.key("rows")
            w.beginArray()
            for row in section.rows { w.integer(row.id) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        w.key("frame"); writeFrame(snapshot.frame, input: snapshot.frameInput, sentAt: snapshot.frameSentAt, into: &w)
        if let key = snapshot.driverKey { w.key("driverKey"); w.string(key) }
        writeResumePoint(snapshot.resumePoint, into: &w)
        writeReplica(snapshot.replica, into: &w)
        w.endObject()
        return w.bytes
    }

    /// A `rowMoved` message (sent reliably to every viewer); `rowMoveVersion` goes as `version`.
    public static func rowMoved(rowID: Int, from: IndexPath, to: IndexPath, by viewer: String, rowMoveVersion: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        w.key("type"); w.string("rowMoved")
        w.key("rowId"); w.integer(rowID)
        w.key("from"); writeIndexPath(from, into: &w)
        w.key("to"); writeIndexPath(to, into: &w)
        w.key("by"); w.string(viewer)
        w.key("version"); w.integer(rowMoveVersion)
        w.endObject()
        return w.bytes
    }

    /// A `presence` message.
    /// `exploring` and `granted` (docs/protocol.md, "Sharing") are written only when not 0 and
    /// not empty.
    public static func presence(viewers: Int, driver: String?, locked: Bool, exploring: Int = 0,
                                granted: [String] = []) -> [UInt8] {
        var w = JSONWriter(capacity: 80 + granted.count * 8)
        w.beginObject()
        w.key("type"); w.string("presence")
        w.key("viewers"); w.integer(viewers)
        w.key("driver"); w.optionalString(driver)
        w.key("locked"); w.bool(locked)
        writeSharing(exploring: exploring, granted: granted, into: &w)
        w.endObject()
        return w.bytes
    }

    /// A `refused` message: `input` is the refused input's id (nil when the refusal is not
    /// about one input).
    public static func refused(input: UInt64?, code: RefusalCode, reason: String) -> [UInt8] {
        refused(input: input, code: code.rawValue, reason: reason)
    }

    static func refused(input: UInt64?, code: String, reason: String) -> [UInt8] {
        var w = JSONWriter(capacity: 80 + reason.utf8.count)
        w.beginObject()
        w.key("type"); w.string("refused")
        w.key("input")
        if let input { w.integer(input) } else { w.null() }
        w.key("code"); w.string(code)
        w.key("reason"); w.string(reason)
        w.endObject()
        return w.bytes
    }

    /// An `error` message, sent just before closing the connection.
    public static func error(message: String) -> [UInt8] {
        var w = JSONWriter(capacity: 32 + message.utf8.count)
        w.beginObject()
        w.key("type"); w.string("error")
        w.key("message"); w.string(message)
        w.endObject()
        return w.bytes
    }

    /// Re-encodes a decoded message: `encode(decode(bytes)) == bytes` for anything this encoder
    /// produced. For test servers, proxies and tests. (A snapshot's `scene.viewport` is taken
    /// from its frame, as `snapshot(_:)` does.)
    public static func encode(_ message: ServerMessage) -> [UInt8] {
        switch message {
        case .frame(let f):
            return frame(f.effectFrame(insets: .zero), input: f.input, sentAt: f.sentAt)
        case .snapshot(let s):
            return snapshot(s.encodable)
        case .rowMoved(let m):
            return rowMoved(rowID: m.rowID, from: m.from, to: m.to, by: m.by, rowMoveVersion: m.rowMoveVersion)
        case .presence(let viewers, let driver, let locked, let exploring, let granted):
            return presence(viewers: viewers, driver: driver, locked: locked, exploring: exploring, granted: granted)
        case .sharing(let notice):
            return sharing(notice)
        case .refused(let input, let code, let reason):
            return refused(input: input, code: code, reason: reason)
        case .error(let message):
            return error(message: message)
        case .resumed(let m):
            return resumed(m)
        case .applied(let m):
            return applied(m)
        case .beat(let m):
            return beat(m)
        case .batch(let m):
            return batch(m)
        case .held(let m):
            return held(m)
        case .pong(let id):
            return pong(id: id)
        }
    }

    // MARK: - Pieces

    static func writeFrame(_ frame: EffectFrame, input: AppliedInput?, sentAt: Double, into w: inout JSONWriter) {
        w.beginObject()
        w.key("type"); w.string("frame")
        w.key("seq"); w.integer(frame.sequence)
        w.key("t"); w.number(frame.time, .milliseconds)
        w.key("sentAt"); w.number(sentAt, .milliseconds)
        w.key("input")
        w.optionalObject(input) { input, w in
            w.key("viewer"); w.string(input.viewer)
            w.key("id"); w.integer(input.id)
        }
        w.key("phase"); w.string(frame.phase.rawValue)
        w.key("animating"); w.bool(frame.isAnimating)
        w.key("viewport"); writeSize(frame.viewport, into: &w)
        w.key("offset"); w.number(frame.contentOffset, .points)
        w.key("contentHeight"); w.number(frame.contentHeight, .points)
        w.key("rows")
        w.beginArray()
        for row in frame.rows {
            w.beginObject()
            writeRowFields(row, into: &w)
            w.endObject()
        }
        w.endArray()
        w.key("headers")
        w.beginArray()
        for header in frame.sectionHeaders {
            w.beginObject()
            w.key("s"); w.integer(header.section)
            w.key("y"); w.number(header.y, .points)
            w.key("h"); w.number(header.height, .points)
            w.key("title"); w.string(header.title)
            w.endObject()
        }
        w.endArray()
        w.key("background")
        w.beginObject()
        w.key("offset"); w.number(frame.backgroundOffset, .points)
        w.endObject()
        w.key("layers")
        w.beginArray()
        for layer in frame.parallaxLayers {
            w.beginObject()
            w.key("i"); w.integer(layer.index)
            w.key("y"); w.number(layer.y, .points)
            w.endObject()
        }
        w.endArray()
        w.key("indicator")
        w.beginObject()
        writeRect(frame.indicator.rect, into: &w)
        w.key("alpha"); w.number(frame.indicator.alpha, .fraction)
        w.endObject()
        w.key("panel")
        w.optionalObject(frame.infoPanel) { panel, w in
            writeRect(panel.rect, into: &w)
            w.key("alpha"); w.number(panel.alpha, .fraction)
            w.key("title"); w.string(panel.title)
            w.key("detail"); w.string(panel.detail)
        }
        w.key("lifted")
        w.optionalObject(frame.liftedRow) { lifted, w in
            writeRowFields(lifted.row, into: &w)
            w.key("lift"); w.number(lifted.lift, .fraction)
            w.key("settling"); w.bool(lifted.isSettling)
        }
        w.key("placeholder")
        w.optionalObject(frame.placeholder) { placeholder, w in
            w.key("s"); w.integer(placeholder.indexPath.section)
            w.key("r"); w.integer(placeholder.indexPath.row)
            w.key("y"); w.number(placeholder.y, .points)
            w.key("h"); w.number(placeholder.height, .points)
        }
        w.endObject()
    }

    private static func writeRowFields(_ row: VisibleRow, into w: inout JSONWriter) {
        w.key("s"); w.integer(row.indexPath.section)
        w.key("r"); w.integer(row.indexPath.row)
        w.key("id"); w.integer(row.id)
        w.key("y"); w.number(row.y, .points)
        w.key("h"); w.number(row.height, .points)
        w.key("title"); w.string(row.title)
        w.key("subtitle"); w.string(row.subtitle)
        w.key("detail"); w.string(row.detail)
    }

    private static func writeRect(_ rect: Rect, into w: inout JSONWriter) {
        w.key("x"); w.number(rect.origin.x, .points)
        w.key("y"); w.number(rect.origin.y, .points)
        w.key("w"); w.number(rect.size.width, .points)
        w.key("h"); w.number(rect.size.height, .points)
    }

    private static func writeSize(_ size: Size, into w: inout JSONWriter) {
        w.beginObject()
        w.key("width"); w.number(size.width, .points)
        w.key("height"); w.number(size.height, .points)
        w.endObject()
    }

    private static func writeIndexPath(_ indexPath: IndexPath, into w: inout JSONWriter) {
        w.beginObject()
        w.key("s"); w.integer(indexPath.section)
        w.key("r"); w.integer(indexPath.row)
        w.endObject()
    }
}
