import ScrollEngine
import ScrollWire

/// Reads recordings (docs/recording.md), refusing anything the format does not allow with the
/// line and the problem: a missing or newer header, a line that is not one JSON object, an
/// unknown type, a missing or invalid field, frames out of order.
public enum RecordingDecoder {
    /// The recording in `bytes` (UTF-8 JSON lines; the last line's newline is optional, and a
    /// line may end in "\r\n").
    public static func decode(_ bytes: some Collection<UInt8>) throws(RecordingError) -> Recording {
        var lines = Array(bytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else {
            throw RecordingError(line: 1, "the file is empty; a recording starts with its header line")
        }
        let header = try decodeHeader(try object(first, line: 1))
        var entries: [RecordingEntry] = []
        entries.reserveCapacity(lines.count - 1)
        var lastFrame: (sequence: UInt64, time: Double)?
        for (offset, text) in lines.dropFirst().enumerated() {
            let line = Recording.line(ofEntry: offset)
            let entry = try decodeEntry(try object(text, line: line), line: line)
            if case let .frame(sequence, time) = entry {
                let expected = (lastFrame?.sequence ?? 0) + 1
                guard sequence == expected else {
                    throw RecordingError(line: line, lastFrame == nil
                        ? "the first frame must have seq 1, got \(sequence)"
                        : "frame seq \(sequence) after seq \(expected - 1); frames are numbered 1, 2, 3, … in order")
                }
                if let lastFrame, time < lastFrame.time {
                    throw RecordingError(line: line, "frame t \(format(time)) is before the previous frame's t \(format(lastFrame.time))")
                }
                lastFrame = (sequence, time)
            }
            entries.append(entry)
        }
        return Recording(header: header, entries: entries)
    }

    /// One line's header, alone (for tools that read a recording line by line).
    public static func decodeHeader(line text: some Collection<UInt8>) throws(RecordingError) -> RecordingHeader {
        try decodeHeader(try object(Array(text)[...], line: 1))
    }

    /// One entry line, alone; `line` is its line number, for errors. Frame order is not checked.
    public static func decodeEntry(line text: some Collection<UInt8>, number line: Int) throws(RecordingError) -> RecordingEntry {
        try decodeEntry(try object(Array(text)[...], line: line), line: line)
    }

    // MARK: -

    private struct Fields {
        let reader: FieldReader
        let line: Int

        func read<T>(_ body: (FieldReader) throws(WireError) -> T) throws(RecordingError) -> T {
            do {
                return try body(reader)
            } catch {
                throw RecordingError(line: line, error.message)
            }
        }
    }

    private static func object(_ text: ArraySlice<UInt8>, line: Int) throws(RecordingError) -> Fields {
        var bytes = Array(text)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw RecordingError(line: line, "empty line; every line is one JSON object") }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw RecordingError(line: line, "not valid UTF-8")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            // The parser speaks of messages; here it is a line.
            throw RecordingError(line: line, error.message.replacingPrefix("message is not valid JSON", with: "not valid JSON"))
        }
        guard case .object(let members) = value else {
            throw RecordingError(line: line, "must be a JSON object, got \(value.typeName)")
        }
        return Fields(reader: FieldReader(members), line: line)
    }

    private static func decodeHeader(_ fields: Fields) throws(RecordingError) -> RecordingHeader {
        let type = try fields.read { r throws(WireError) in try r.string("type") }
        guard type == "recording" else {
            throw RecordingError(line: 1, #"a recording starts with its header line ({"type":"recording",…}), got type '\#(JSONParser.printable(type))'"#)
        }
        let version = try fields.read { r throws(WireError) in try r.int("version", in: 1...Int(ScrollWire.maxSafeInteger)) }
        guard version <= RecordingHeader.currentVersion else {
            throw RecordingError(line: 1, "recording version \(version) is newer than this build reads (\(RecordingHeader.currentVersion))")
        }
        return try fields.read { r throws(WireError) in
            let room = try r.string("room")
            guard ScrollWire.isValidRoomName(room) else { throw WireError("field 'room': " + ScrollWire.roomNameRule) }
            let life = r.has("life") ? try r.int("life", in: 1...Int(ScrollWire.maxSafeInteger)) : nil
            let scene = try r.string("scene")
            guard !scene.isEmpty else { throw WireError("field 'scene' must name a scene of the catalogue") }
            let rowOrder = try Self.rowOrder(r)
            let rowMoveVersion = r.has("rowMoveVersion") ? try r.int("rowMoveVersion") : 0
            let period = r.has("framePeriod") ? try r.number("framePeriod") : nil
            if let period, !(period > 0) { throw WireError("field 'framePeriod' must be a positive number of ms") }
            return RecordingHeader(room: room, life: life, scene: scene, rowOrder: rowOrder, rowMoveVersion: rowMoveVersion,
                                   framePeriod: period)
        }
    }

    private static func rowOrder(_ r: FieldReader) throws(WireError) -> [[Int]] {
        let problem = WireError("field 'rowOrder' must be an array of sections, each an array of row ids (integers ≥ 0)")
        guard case .array(let sections) = try r.required("rowOrder") else { throw problem }
        var order: [[Int]] = []
        var seen = Set<Int>()
        for section in sections {
            guard case .array(let ids) = section else { throw problem }
            var rows: [Int] = []
            rows.reserveCapacity(ids.count)
            for id in ids {
                guard case .number(let value) = id, value >= 0, value == value.rounded(.towardZero),
                      value <= Double(ScrollWire.maxSafeInteger) else { throw problem }
                guard seen.insert(Int(value)).inserted else {
                    throw WireError("field 'rowOrder' lists row \(Int(value)) twice")
                }
                rows.append(Int(value))
            }
            order.append(rows)
        }
        return order
    }

    private static func decodeEntry(_ fields: Fields, line: Int) throws(RecordingError) -> RecordingEntry {
        let type = try fields.read { r throws(WireError) in try r.string("type") }
        switch type {
        case "input", "cancel":
            return try fields.read { r throws(WireError) in
                let viewer = try r.string("viewer")
                guard !viewer.isEmpty else { throw WireError("field 'viewer' must not be empty") }
                let id = UInt64(try r.integer("id", in: 0...Int64(ScrollWire.maxSafeInteger)))
                let time = try r.number("t")
                let kindText = try r.string("kind")
                guard let name = InputKindName(rawValue: kindText) else {
                    throw WireError("unknown input kind '\(JSONParser.printable(kindText))'")
                }
                let event = InputEvent(id: id, time: time, kind: try ClientMessageDecoder.inputKind(name, r))
                if type == "input" { return .input(viewer: viewer, event: event) }
                guard name == .pointerCancel || name == .longPressCancel else {
                    throw WireError("a cancel's kind must be pointerCancel or longPressCancel, got '\(kindText)'")
                }
                return .cancel(viewer: viewer, event: event)
            }
        case "frame":
            return try fields.read { r throws(WireError) in
                .frame(sequence: UInt64(try r.integer("seq", in: 1...Int64(ScrollWire.maxSafeInteger))),
                       time: try r.number("t"))
            }
        case "recording":
            throw RecordingError(line: line, "a second header; a recording has one, on line 1")
        default:
            throw RecordingError(line: line, "unknown line type '\(JSONParser.printable(type))'; expected input, cancel or frame")
        }
    }

    private static func format(_ value: Double) -> String {
        var w = JSONWriter(capacity: 24)
        w.exactNumber(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
