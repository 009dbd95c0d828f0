import ScrollEngine

// A `batch` in version 2 (docs/protocol.md, "`batch` (`10`)"): the entries of `applied` with
// their numbers as `num`s (CompactNumber.swift), times as Δs from the entry before, and a
// viewer's run of inputs naming its viewer and id once. A one-move batch is about 22 bytes (its
// room time on the room's 1/256 ms grid) instead of the 43 of 8-byte doubles; every value still
// decodes to the room's very double.

/// The bits of an entry's head byte in a version-2 batch.
enum BatchHeadV2 {
    /// Bits 0–3: the kind (as `applied`'s kind byte).
    static let kindMask: UInt8 = 0x0f
    /// Bits 4–6: the cause.
    static let causeShift: UInt8 = 4
    /// Bit 7: the viewer is the previous entry's and the id is its id + 1 (neither written).
    static let same: UInt8 = 0x80
}

extension ServerMessageEncoderV2 {
    /// A `batch` message (version 2, type `10`). Its front (type, `changes`, the count, the
    /// last change's `t`, `complete`) is read without the entries (the load tool's viewers), so
    /// times run backwards: each entry's `t` is a Δ from the next one's.
    public static func batch(_ m: BatchMessage) -> [UInt8] {
        var w = BinaryWriter(capacity: 16 + m.applied.count * 24)
        w.byte(ServerMessageTypeV2.batch.rawValue)
        w.uvarint(m.changes)
        w.uvarint(m.applied.count)
        if let last = m.applied.last {
            w.compact(last.time)
            w.compact(m.complete, from: last.time)
        } else {
            w.compact(m.complete)
        }
        for (i, entry) in m.applied.enumerated() {
            let cause = UInt8(AppliedCause.allCases.firstIndex(of: entry.cause) ?? 0)
            let previous = i > 0 ? m.applied[i - 1] : nil
            let same = previous.map { $0.viewer == entry.viewer && $0.id &+ 1 == entry.id } ?? false
            w.byte(AppliedCodesV2.code(entry.change) | cause << BatchHeadV2.causeShift | (same ? BatchHeadV2.same : 0))
            if let previous {
                w.svarint(Int64(bitPattern: entry.after &- previous.after))
            } else {
                w.uvarint(entry.after)
            }
            if i + 1 < m.applied.count { w.compact(entry.time, from: m.applied[i + 1].time) }
            if !same {
                // Viewer ids are never empty: "" stands for null.
                w.string(entry.viewer ?? "")
                w.uvarint(entry.id)
            }
            writeFields(of: entry.change, into: &w) { w, x in w.compact(x) }
        }
        return w.bytes
    }
}

extension ServerMessageDecoderV2 {
    static func batch(_ r: inout BinaryReader) throws(WireError) -> BatchMessage {
        let changes = try r.uvarint("changes")
        // An entry takes at least 3 bytes (head, after, and a viewer or a field).
        let count = try r.count("applied", minimumBytes: 3)
        let lastTime = count > 0 ? try r.compact("t") : nil
        let complete = try r.compact("complete", from: lastTime)
        var applied: [AppliedMessage] = []
        var times: [(x: Double, isCount: Bool)] = []
        for i in 0..<count {
            let head = try r.byte("head")
            let causeCode = Int(head >> BatchHeadV2.causeShift & 7)
            guard causeCode < AppliedCause.allCases.count else { throw WireError("unknown cause \(causeCode)") }
            let previous = applied.last
            let after: UInt64
            if let previous {
                let sum = try BinaryReader.sum(Int64(clamping: previous.after), try r.svarint("after"), "after")
                guard sum >= 0 else { throw WireError("after: below 0") }
                after = UInt64(sum)
            } else {
                guard head & BatchHeadV2.same == 0 else { throw WireError("head: the first entry cannot repeat a viewer") }
                after = try r.uvarint("after")
            }
            if i + 1 < count { times.append(try r.compactPart("t", delta: true)) }
            var viewer = previous?.viewer, id = (previous?.id ?? 0) &+ 1
            if head & BatchHeadV2.same == 0 {
                let name = try r.string("viewer")
                viewer = name.isEmpty ? nil : name
                id = try r.uvarint("id")
            } else if id > ScrollWire.maxSafeInteger {
                throw WireError("id: entry \(i)'s id is beyond 2^53 − 1")
            }
            let change = try Self.change(kind: head & BatchHeadV2.kindMask, &r) { r, name throws(WireError) in try r.compact(name) }
            applied.append(AppliedMessage(after: after, time: lastTime ?? 0, viewer: viewer, id: id,
                                          cause: AppliedCause.allCases[causeCode], change: change))
        }
        // Each time is a Δ from the next entry's (or the value itself): fill them in backwards.
        for i in times.indices.reversed() {
            applied[i].time = times[i].isCount ? applied[i + 1].time + times[i].x : times[i].x
        }
        return BatchMessage(changes: changes, complete: complete, applied: applied)
    }
}
