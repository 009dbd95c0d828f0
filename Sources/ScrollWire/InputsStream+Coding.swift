import ScrollEngine

// The inputs stream's pieces on the wire (docs/protocol.md, "The inputs stream"): a snapshot's
// `replica`, `batch`, and the beat's `hash` (in Beat.swift), in both versions.

extension ServerMessageEncoder {
    /// A `batch` message (version 1); numbers exact.
    public static func batch(_ m: BatchMessage) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + m.applied.count * 150)
        w.beginObject()
        w.key("type"); w.string("batch")
        w.key("changes"); w.integer(m.changes)
        w.key("complete"); w.exactNumber(m.complete)
        w.key("applied")
        w.beginArray()
        for entry in m.applied {
            var entry = entry
            entry.complete = nil
            writeApplied(entry, into: &w, type: false)
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    /// A snapshot's `replica`, when it has one.
    static func writeReplica(_ replica: ReplicaStart?, into w: inout JSONWriter) {
        guard let replica else { return }
        w.key("replica")
        w.beginObject()
        w.key("engine"); w.integer(UInt64(replica.engine))
        w.key("t"); w.exactNumber(replica.time)
        w.key("changes"); w.integer(replica.changes)
        w.key("input")
        w.optionalObject(replica.input) { input, w in
            w.key("viewer"); w.string(input.viewer)
            w.key("id"); w.integer(input.id)
        }
        w.key("state"); w.string(Base64.encode(replica.state))
        w.endObject()
    }
}

extension ServerMessageDecoder {
    static func batch(_ r: FieldReader) throws(WireError) -> BatchMessage {
        BatchMessage(changes: UInt64(try r.int("changes")), complete: try r.number("complete"),
                     applied: try r.objects("applied") { (entry: FieldReader) throws(WireError) in try applied(entry) })
    }

    static func beat(_ r: FieldReader) throws(WireError) -> BeatMessage {
        var hash: UInt64?
        if let text = try r.optionalString("hash") {
            guard let value = HashText.parse(text) else { throw WireError("field 'hash' must be 16 lowercase hexadecimal digits") }
            hash = value
        }
        return BeatMessage(time: try r.number("t"), complete: try r.number("complete"), hash: hash)
    }

    static func replica(_ r: FieldReader) throws(WireError) -> ReplicaStart? {
        guard let x = try r.optionalObject("replica") else { return nil }
        let input = try x.optionalObject("input").map { (i: FieldReader) throws(WireError) in
            AppliedInput(viewer: try i.string("viewer"), id: try i.id("id"))
        }
        guard let state = Base64.decode(try x.string("state")) else { throw WireError("field 'replica.state' must be base64") }
        return ReplicaStart(engine: UInt32(try x.integer("engine", in: 0...Int64(UInt32.max))), time: try x.number("t"),
                            changes: UInt64(try x.int("changes")), input: input, state: state)
    }
}

extension ServerMessageEncoderV2 {
    /// A snapshot's `replica` (after `life` and `moves`; flag bit 5), when it has one.
    static func writeReplica(_ replica: ReplicaStart?, into w: inout BinaryWriter) {
        guard let replica else { return }
        w.uvarint(UInt64(replica.engine))
        w.float64(replica.time)
        w.uvarint(replica.changes)
        w.byte(replica.input == nil ? 0 : 1)
        if let input = replica.input {
            w.string(input.viewer)
            w.uvarint(input.id)
        }
        w.uvarint(replica.state.count)
        w.raw(replica.state)
    }
}

extension ServerMessageDecoderV2 {
    static func hashedBeat(_ r: inout BinaryReader) throws(WireError) -> BeatMessage {
        let time = try r.compact("t")
        return BeatMessage(time: time, complete: try r.compact("complete", from: time), hash: try r.u64("hash"))
    }

    static func replica(_ r: inout BinaryReader) throws(WireError) -> ReplicaStart {
        let engine = try r.uvarint("replica.engine")
        guard engine <= UInt64(UInt32.max) else { throw WireError("replica.engine must be at most 4294967295") }
        let time = try r.float64("replica.t")
        let changes = try r.uvarint("replica.changes")
        let flags = try r.byte("replica.flags")
        guard flags & ~1 == 0 else { throw WireError("replica.flags: reserved bits set in \(flags)") }
        var input: AppliedInput?
        if flags & 1 != 0 { input = AppliedInput(viewer: try r.string("replica.input.viewer"), id: try r.uvarint("replica.input.id")) }
        let state = try r.raw(try r.uint("replica.state"), "replica.state")
        return ReplicaStart(engine: UInt32(engine), time: time, changes: changes, input: input, state: state)
    }
}
