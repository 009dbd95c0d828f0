import ScrollEngine

/// Encodes client messages, for the load generator, test clients and tests. The output is
/// what `ClientMessageDecoder` accepts (given values within the protocol's limits).
public enum ClientMessageEncoder {
    /// A `join` message. `client`, `driverKey` and `scene` are left out when nil, `lock` when false.
    public static func join(_ request: JoinRequest) -> String {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("type"); w.string("join")
        w.key("room"); w.string(request.room)
        if let client = request.client { w.key("client"); w.string(client) }
        if let key = request.driverKey { w.key("driverKey"); w.string(key) }
        if request.lock { w.key("lock"); w.bool(true) }
        if let scene = request.scene { w.key("scene"); w.string(scene) }
        if request.resumable { w.key("resumable"); w.bool(true) }
        if request.inputs { w.key("inputs"); w.bool(true) }
        if request.complete { w.key("complete"); w.bool(true) }
        if request.stream != .frames { w.key("stream"); w.string(request.stream.rawValue) }
        if let engine = request.engine { w.key("engine"); w.integer(UInt64(engine)) }
        if let batchMs = request.batchMs { w.key("batchMs"); w.integer(UInt64(batchMs)) }
        if let resume = request.resume {
            w.key("resume")
            w.beginObject()
            w.key("life"); w.integer(resume.life)
            w.key("seq"); w.integer(resume.seq)
            w.key("moves"); w.integer(resume.rowMoveVersion)
            if let grant = resume.grant { w.key("grant"); w.string(grant) }
            w.endObject()
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// An `input` message with its kind's fields.
    public static func input(_ input: InputMessage) -> String {
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        w.key("type"); w.string("input")
        w.key("id"); w.integer(input.id)
        w.key("t"); w.number(input.clientTime)
        if let at = input.at { w.key("at"); w.number(at) }
        w.key("kind"); w.string(InputKindName(input.kind).rawValue)
        writeFields(of: input.kind, into: &w)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Writes the fields an `input` message carries for `kind` (`x` and `y`, `dx`, `dy` and
    /// `mode`, …), by their wire names. With `exact`, a negative zero keeps its sign ("-0"), so
    /// the numbers read back as the very doubles written (recordings need that; the wire does not).
    package static func writeFields(of kind: InputKind, into w: inout JSONWriter, exact: Bool = false) {
        func number(_ value: Double) {
            if exact { w.exactNumber(value) } else { w.number(value) }
        }
        switch kind {
        case .pointerDown(let p), .pointerMoved(let p), .pointerUp(let p),
             .longPressBegan(let p), .longPressMoved(let p), .longPressEnded(let p):
            w.key("x"); number(p.x)
            w.key("y"); number(p.y)
        case .pointerCancelled, .longPressCancelled:
            break
        case .wheel(let dx, let dy, let mode):
            w.key("dx"); number(dx)
            w.key("dy"); number(dy)
            w.key("mode"); w.string(mode.rawValue)
        case .key(let key):
            w.key("key"); w.string(key.rawValue)
        case .scrollToRow(let indexPath, let position, let animated):
            w.key("section"); w.integer(indexPath.section)
            w.key("row"); w.integer(indexPath.row)
            w.key("position"); w.string(position.rawValue)
            w.key("animated"); w.bool(animated)
        case .resize(let size):
            w.key("width"); number(size.width)
            w.key("height"); number(size.height)
        case .reducedMotion(let on):
            w.key("on"); w.bool(on)
        }
    }

    /// Either message.
    public static func encode(_ message: ClientMessage) -> String {
        switch message {
        case .join(let request): return join(request)
        case .input(let message): return Self.input(message)
        case .sharing(let request): return sharing(request)
        case .keyframe: return #"{"type":"keyframe"}"#
        case .ping(let id): return #"{"type":"ping","id":\#(id)}"#
        }
    }
}
