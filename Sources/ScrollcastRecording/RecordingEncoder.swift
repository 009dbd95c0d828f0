import ScrollEngine
import ScrollWire

/// Writes recordings (docs/recording.md): compact JSON, one object per line, keys in a fixed
/// order, numbers in the shortest form that reads back to the same double (a negative zero as
/// `-0`), so the inputs read back are exactly the ones the room applied.
public enum RecordingEncoder {
    /// The whole file: the header line and one line per entry, each ended by "\n".
    public static func encode(_ recording: Recording) -> [UInt8] {
        var bytes = header(recording.header)
        bytes.append(UInt8(ascii: "\n"))
        for entry in recording.entries {
            bytes.append(contentsOf: line(entry))
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The header line, without its newline.
    public static func header(_ header: RecordingHeader) -> [UInt8] {
        var w = JSONWriter(capacity: 256 + header.rowOrder.reduce(0) { $0 + $1.count } * 6)
        w.beginObject()
        w.key("type"); w.string("recording")
        w.key("version"); w.integer(RecordingHeader.currentVersion)
        w.key("room"); w.string(header.room)
        w.key("life")
        if let life = header.life { w.integer(life) } else { w.null() }
        w.key("scene"); w.string(header.scene)
        w.key("rowOrder")
        w.beginArray()
        for section in header.rowOrder {
            w.beginArray()
            for id in section { w.integer(id) }
            w.endArray()
        }
        w.endArray()
        w.key("rowMoveVersion"); w.integer(header.rowMoveVersion)
        w.key("framePeriod")
        if let period = header.framePeriod { w.exactNumber(period) } else { w.null() }
        // Only uploaded scenes have one: other recordings stay as they were.
        if let sceneFile = header.sceneFile { w.key("sceneFile"); w.string(sceneFile) }
        w.endObject()
        return w.bytes
    }

    /// An entry's line, without its newline.
    public static func line(_ entry: RecordingEntry) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        switch entry {
        case let .input(viewer, event):
            w.key("type"); w.string("input")
            writeEvent(event, viewer: viewer, into: &w)
        case let .cancel(viewer, event):
            w.key("type"); w.string("cancel")
            writeEvent(event, viewer: viewer, into: &w)
        case let .frame(sequence, time):
            w.key("type"); w.string("frame")
            w.key("seq"); w.integer(sequence)
            w.key("t"); w.exactNumber(time)
        }
        w.endObject()
        return w.bytes
    }

    private static func writeEvent(_ event: InputEvent, viewer: String, into w: inout JSONWriter) {
        w.key("viewer"); w.string(viewer)
        w.key("id"); w.integer(event.id)
        w.key("t"); w.exactNumber(event.time)
        w.key("kind"); w.string(InputKindName(event.kind).rawValue)
        ClientMessageEncoder.writeFields(of: event.kind, into: &w, exact: true)
    }
}
