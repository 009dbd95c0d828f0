import ScrollEngine

/// Decodes and validates client messages (docs/protocol.md, "Client → server").
///
/// Total: any byte string yields a message or a `WireError`, never a trap. Checks run in the
/// order a server needs: size first (close 1009), then UTF-8 (1007), then JSON syntax, shape
/// and every field (1008). Unknown extra fields are ignored, so clients may add their own.
public enum ClientMessageDecoder {
    /// Decodes one client message from its UTF-8 bytes.
    public static func decode(_ utf8: some Collection<UInt8>) throws(WireError) -> ClientMessage {
        let bytes = try MessageBytes.check(utf8)
        let reader = try FieldReader(message: try JSONParser.parse(bytes))
        let type = try reader.string("type")
        switch type {
        case "join": return .join(try join(reader))
        case "input": return .input(try input(reader))
        case "keyframe": return .keyframe
        case "ping": return .ping(id: try reader.id("id"))
        case _ where SharingRequest.types.contains(type): return .sharing(try sharing(type, reader))
        default: throw WireError("unknown message type '\(JSONParser.printable(type))'")
        }
    }

    /// Decodes one client message from a string.
    public static func decode(_ text: String) throws(WireError) -> ClientMessage {
        try decode(Array(text.utf8))
    }

    private static func join(_ r: FieldReader) throws(WireError) -> JoinRequest {
        let room = try r.string("room")
        guard ScrollWire.isValidRoomName(room) else { throw WireError(ScrollWire.roomNameRule) }
        let client = try r.optionalString("client")
        if let client {
            guard client.unicodeScalars.count <= ScrollWire.maxClientLength else {
                throw WireError("field 'client' must be at most \(ScrollWire.maxClientLength) characters")
            }
            guard !client.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw WireError("field 'client' must not contain control characters")
            }
        }
        let driverKey = try r.optionalString("driverKey")
        if let driverKey, !ScrollWire.isValidDriverKey(driverKey) {
            throw WireError("field 'driverKey' must be 1–\(ScrollWire.maxDriverKeyLength) characters of printable ASCII without spaces")
        }
        let lock = try r.optionalBool("lock") ?? false
        let scene = try r.optionalString("scene")
        if let scene, scene.unicodeScalars.count > ScrollWire.maxSceneNameLength {
            throw WireError("field 'scene' must be at most \(ScrollWire.maxSceneNameLength) characters")
        }
        let inputs = try r.optionalBool("inputs") ?? false
        let complete = try r.optionalBool("complete") ?? false
        let stream = try r.optionalString("stream").map { (name: String) throws(WireError) -> ViewerStream in
            guard let stream = ViewerStream(rawValue: name) else {
                throw WireError.notOneOf(field: "stream", options: ViewerStream.allCases.map { $0.rawValue }, got: name)
            }
            return stream
        } ?? .frames
        if complete, !inputs, stream != .inputs { throw WireError("field 'complete' needs 'inputs': true") }
        let engine = r.has("engine") ? UInt32(try r.integer("engine", in: 0...Int64(UInt32.max))) : nil
        let batchMs = r.has("batchMs") ? try r.int("batchMs", in: ScrollWire.batchPeriodRange) : nil
        if batchMs != nil, stream != .inputs { throw WireError("field 'batchMs' needs 'stream': 'inputs'") }
        return JoinRequest(room: room, client: client, driverKey: driverKey, lock: lock, scene: scene,
                           resumable: try r.optionalBool("resumable") ?? false, resume: try resumeRequest(r),
                           inputs: inputs, complete: complete, stream: stream, engine: engine, batchMs: batchMs)
    }

    private static func input(_ r: FieldReader) throws(WireError) -> InputMessage {
        let id = try r.id("id")
        let time = try r.number("t")
        let kindText = try r.string("kind")
        guard let kindName = InputKindName(rawValue: kindText) else {
            throw WireError("unknown input kind '\(JSONParser.printable(kindText))'")
        }
        let at = r.has("at") ? try r.number("at") : nil
        return InputMessage(id: id, clientTime: time, kind: try inputKind(kindName, r), at: at)
    }

    /// The input kind `name` with its fields read from `r`, each checked against the protocol's
    /// limits (shared with recordings, whose input lines carry the same fields).
    package static func inputKind(_ name: InputKindName, _ r: FieldReader) throws(WireError) -> InputKind {
        switch name {
        case .pointerDown: return .pointerDown(try point(r))
        case .pointerMove: return .pointerMoved(try point(r))
        case .pointerUp: return .pointerUp(try point(r))
        case .pointerCancel: return .pointerCancelled
        case .longPressBegan: return .longPressBegan(try point(r))
        case .longPressMove: return .longPressMoved(try point(r))
        case .longPressEnd: return .longPressEnded(try point(r))
        case .longPressCancel: return .longPressCancelled
        case .wheel:
            return .wheel(dx: try coordinate("dx", r), dy: try coordinate("dy", r),
                          mode: try r.choice("mode", [WheelDeltaMode.pixel, .line, .page]))
        case .key:
            return .key(try r.choice("key", ScrollKey.allCases))
        case .scrollToRow:
            let indexPath = IndexPath(section: try r.int("section", in: 0...ScrollWire.maxIndex),
                                      row: try r.int("row", in: 0...ScrollWire.maxIndex))
            return .scrollToRow(indexPath, position: try r.choice("position", ScrollPosition.allCases),
                                animated: try r.bool("animated"))
        case .resize:
            return .resize(Size(width: try r.number("width", in: ScrollWire.resizeRange),
                                height: try r.number("height", in: ScrollWire.resizeRange)))
        case .reducedMotion:
            return .reducedMotion(try r.bool("on"))
        }
    }

    private static func point(_ r: FieldReader) throws(WireError) -> Point {
        Point(x: try coordinate("x", r), y: try coordinate("y", r))
    }

    private static func coordinate(_ field: String, _ r: FieldReader) throws(WireError) -> Double {
        let m = ScrollWire.maxCoordinateMagnitude
        return try r.number(field, in: -m...m)
    }
}

/// The checks every incoming message gets before parsing.
enum MessageBytes {
    /// Size first (so a huge message costs nothing more), then UTF-8 validity.
    static func check(_ utf8: some Collection<UInt8>, limit: Int = ScrollWire.maxMessageBytes) throws(WireError) -> [UInt8] {
        let count = utf8.count
        guard count <= limit else {
            throw WireError("message is \(count) bytes; the limit is \(limit)",
                            kind: .tooBig)
        }
        let bytes = Array(utf8)
        // ASCII (every message a client library writes, usually) is valid UTF-8 as it is; else the
        // standard library's validator, much faster than decoding scalar by scalar.
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else {
            throw WireError("message is not valid UTF-8", kind: .invalidUTF8)
        }
        return bytes
    }
}
