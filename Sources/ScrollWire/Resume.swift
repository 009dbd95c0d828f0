/// Where a viewer was in a room, as it asks to resume there (`join`'s `resume`): the room's
/// life, the last frame `seq` it received and the number of the last row move it applied.
public struct ResumeRequest: Sendable, Hashable {
    /// The room's life, from the viewer's last `snapshot` or `resumed` (1…2^53 − 1).
    public var life: UInt64
    /// The last frame `seq` the viewer received (0…2^53 − 1).
    public var seq: UInt64
    /// The `rowMoveVersion` of the last row move the viewer applied, or its snapshot's (`moves`
    /// on the wire).
    public var rowMoveVersion: Int
    /// The `grant` of a `granted` the viewer's earlier connection was sent: the resumed
    /// connection may drive as that one could (docs/protocol.md, "Sharing").
    public var grant: String?

    /// A resume request.
    public init(life: UInt64, seq: UInt64, rowMoveVersion: Int, grant: String? = nil) {
        self.life = life; self.seq = seq; self.rowMoveVersion = rowMoveVersion; self.grant = grant
    }
}

// The cluster's node messages carry a resume as JSON; Embedded Swift (the page's Wasm build of
// this module) has no Codable, so the conformance exists only in the native build.
#if !hasFeature(Embedded)
extension ResumeRequest: Codable {
    // The wire's names (node messages carry a resume as JSON).
    enum CodingKeys: String, CodingKey {
        case life, seq
        case rowMoveVersion = "moves"
        // A resume on another node than the grant's keeps the grant: the owner checks it.
        case grant
    }
}
#endif

/// What a viewer that may resume is told with its snapshot: the room's life and the number of
/// row moves made so far (the `rowMoveVersion` of the last `rowMoved`, 0 for none).
public struct ResumePoint: Sendable, Equatable, Hashable {
    /// Identifies one run of the room; changes whenever the room is made again (restart,
    /// eviction, a new owner in a cluster), so a resume across lives gets a snapshot.
    public var life: UInt64
    /// Row moves made in the room so far (`moves` on the wire).
    public var rowMoveVersion: Int

    /// A resume point.
    public init(life: UInt64, rowMoveVersion: Int) {
        self.life = life; self.rowMoveVersion = rowMoveVersion
    }
}

/// A `resumed` message: the answer to a `join` whose `resume` the room could honour. The row
/// moves the viewer missed follow it (as `rowMoved` messages), then in version 2 the texts it
/// missed, then, when `seq` > `from`, the room's latest frame.
public struct ResumedMessage: Sendable, Equatable {
    /// Room name.
    public var room: String
    /// This connection's viewer id (a new one: the old connection's viewer left).
    public var viewer: String
    /// Viewers in the room, this one included.
    public var viewers: Int
    /// Who holds the room with a gesture, if anyone.
    public var driver: String?
    /// Whether the room is locked.
    public var locked: Bool
    /// The room's life (the one the viewer named).
    public var life: UInt64
    /// Row moves made in the room so far (`moves` on the wire): after the `rowMoved`s that
    /// follow, the viewer's order is the room's at this version.
    public var rowMoveVersion: Int
    /// The `seq` the viewer resumed from.
    public var from: UInt64
    /// The room's latest frame `seq`; its frame follows unless it equals `from`.
    public var seq: UInt64
    /// The room's key, for a viewer that may drive a locked room (as in `snapshot`).
    public var driverKey: String?

    /// A resumed message.
    public init(room: String, viewer: String, viewers: Int, driver: String?, locked: Bool, life: UInt64,
                rowMoveVersion: Int, from: UInt64, seq: UInt64, driverKey: String? = nil) {
        self.room = room; self.viewer = viewer; self.viewers = viewers; self.driver = driver; self.locked = locked
        self.life = life; self.rowMoveVersion = rowMoveVersion; self.from = from; self.seq = seq; self.driverKey = driverKey
    }
}

extension ServerMessageEncoder {
    /// A `resumed` message (version 1).
    public static func resumed(_ m: ResumedMessage) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        w.key("type"); w.string("resumed")
        w.key("room"); w.string(m.room)
        w.key("viewer"); w.string(m.viewer)
        w.key("viewers"); w.integer(m.viewers)
        w.key("driver"); w.optionalString(m.driver)
        w.key("locked"); w.bool(m.locked)
        w.key("life"); w.integer(m.life)
        w.key("moves"); w.integer(m.rowMoveVersion)
        w.key("from"); w.integer(m.from)
        w.key("seq"); w.integer(m.seq)
        if let key = m.driverKey { w.key("driverKey"); w.string(key) }
        w.endObject()
        return w.bytes
    }

    /// Writes a snapshot's `life` and `moves`, for viewers that may resume.
    static func writeResumePoint(_ point: ResumePoint?, into w: inout JSONWriter) {
        guard let point else { return }
        w.key("life"); w.integer(point.life)
        w.key("moves"); w.integer(point.rowMoveVersion)
    }
}

extension ServerMessageDecoder {
    static func resumed(_ r: FieldReader) throws(WireError) -> ResumedMessage {
        ResumedMessage(room: try r.string("room"), viewer: try r.string("viewer"), viewers: try r.int("viewers"),
                       driver: try r.optionalString("driver"), locked: try r.optionalBool("locked") ?? false,
                       life: try r.id("life"), rowMoveVersion: try r.int("moves"), from: UInt64(try r.int("from")),
                       seq: UInt64(try r.int("seq")), driverKey: try r.optionalString("driverKey"))
    }

    static func resumePoint(_ r: FieldReader) throws(WireError) -> ResumePoint? {
        guard r.has("life") else { return nil }
        return ResumePoint(life: try r.id("life"), rowMoveVersion: try r.int("moves"))
    }
}

extension ClientMessageDecoder {
    /// `join`'s `resume` object, `life` and `seq` required, every field in range; nil when
    /// absent. `moves` left out or `null` is 0, the count of a client that applied no move (as an
    /// optional field may be left out or be `null`); the server vouches for it as for any count.
    static func resumeRequest(_ r: FieldReader) throws(WireError) -> ResumeRequest? {
        guard r.has("resume") else { return nil }
        let resume = try r.object("resume")
        let grant = try resume.optionalString("grant")
        if let grant, !ScrollWire.isValidDriverKey(grant) {
            throw WireError("field 'resume.grant' must be 1–\(ScrollWire.maxDriverKeyLength) characters of printable ASCII without spaces")
        }
        return ResumeRequest(life: try resume.id("life"), seq: UInt64(try resume.int("seq")),
                             rowMoveVersion: resume.has("moves") ? try resume.int("moves") : 0, grant: grant)
    }
}

extension ServerMessageEncoderV2 {
    /// A `resumed` message (version 2, type `08`).
    public static func resumed(_ m: ResumedMessage) -> [UInt8] {
        var w = BinaryWriter(capacity: 32 + m.room.utf8.count + m.viewer.utf8.count)
        w.byte(ServerMessageTypeV2.resumed.rawValue)
        w.string(m.room)
        w.string(m.viewer)
        w.uvarint(m.viewers)
        var flags: UInt8 = 0
        if m.driver != nil { flags |= MessageFlagsV2.driver }
        if m.locked { flags |= MessageFlagsV2.locked }
        if m.driverKey != nil { flags |= MessageFlagsV2.driverKey }
        w.byte(flags)
        if let driver = m.driver { w.string(driver) }
        if let key = m.driverKey { w.string(key) }
        w.uvarint(m.life)
        w.uvarint(m.rowMoveVersion)
        w.uvarint(m.from)
        w.uvarint(m.seq)
        return w.bytes
    }
}

extension ServerMessageDecoderV2 {
    static func resumed(_ r: inout BinaryReader) throws(WireError) -> ResumedMessage {
        let room = try r.string("room")
        let viewer = try r.string("viewer")
        let viewers = try r.uint("viewers")
        let flags = try r.byte("flags")
        guard flags & ~MessageFlagsV2.resumedAll == 0 else { throw WireError("flags: reserved bits set in \(flags)") }
        let driver = flags & MessageFlagsV2.driver != 0 ? try r.string("driver") : nil
        let driverKey = flags & MessageFlagsV2.driverKey != 0 ? try r.string("driverKey") : nil
        let life = try r.uvarint("life")
        guard ScrollWire.idRange.contains(life) else {
            throw WireError("life must be an integer in 1…\(ScrollWire.maxSafeInteger)")
        }
        return ResumedMessage(room: room, viewer: viewer, viewers: viewers, driver: driver,
                              locked: flags & MessageFlagsV2.locked != 0, life: life, rowMoveVersion: try r.uint("moves"),
                              from: try r.uvarint("from"), seq: try r.uvarint("seq"), driverKey: driverKey)
    }
}
