import ScrollcastServer
import ScrollWire

/// What a room's owner publishes on the room's channel, for the nodes with viewers of it: a
/// message in the forms its viewers there speak, whom it is for, and the owner's epoch, so a
/// node drops anything from an owner that has been replaced. Binary, big-endian:
///
/// ```
/// u8 format (1) · u8 kind (1 reliable, 2 frame, 3 owner) · u64 epoch · u64 seq (frames)
/// f64 publishedAt (wall ms) · u16+bytes node · u8 audience (0 everyone, 1 viewer,
/// 2 everyone-except, 3 input watchers) [u16+bytes viewer] · u32+bytes v1 · u32+bytes v2 (0xFFFFFFFF: absent)
/// ```
struct RelayEnvelope: Equatable {
    enum Kind: UInt8 {
        /// A message every viewer in its audience must get.
        case reliable = 1
        /// A frame: a viewer still writing an older one gets this one in its place.
        case frame = 2
        /// The room has a new owner (this one): nodes send it their rosters.
        case owner = 3
    }

    var kind: Kind
    var epoch: UInt64
    var sequence: UInt64 = 0
    var publishedAt: Double
    var node: String
    var audience: Audience = .everyone
    var v1: [UInt8]?
    var v2: [UInt8]?

    static let format: UInt8 = 1

    /// The message in `version`'s form, if it has one.
    subscript(version: WireVersion) -> [UInt8]? {
        switch version {
        case .v1: return v1
        case .v2: return v2
        }
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(40 + node.utf8.count + (v1?.count ?? 0) + (v2?.count ?? 0))
        out.append(Self.format)
        out.append(kind.rawValue)
        Self.append(epoch, to: &out)
        Self.append(sequence, to: &out)
        Self.append(publishedAt.bitPattern, to: &out)
        Self.appendShort(Array(node.utf8), to: &out)
        switch audience {
        case .everyone: out.append(0)
        case .viewer(let id): out.append(1); Self.appendShort(Array(id.utf8), to: &out)
        case .everyoneExcept(let id): out.append(2); Self.appendShort(Array(id.utf8), to: &out)
        case .inputWatchers: out.append(3)
        }
        Self.appendLong(v1, to: &out)
        Self.appendLong(v2, to: &out)
        return out
    }

    /// Decodes an envelope; nil for anything else (a newer format, or damaged bytes).
    static func decode(_ bytes: [UInt8]) -> RelayEnvelope? {
        var reader = Reader(bytes: bytes)
        guard reader.byte() == format, let kind = reader.byte().flatMap(Kind.init(rawValue:)),
              let epoch = reader.u64(), let sequence = reader.u64(), let published = reader.u64(),
              let node = reader.short().flatMap({ String(validating: $0, as: UTF8.self) }),
              let audienceKind = reader.byte() else { return nil }
        let audience: Audience
        switch audienceKind {
        case 0: audience = .everyone
        case 3: audience = .inputWatchers
        case 1, 2:
            guard let id = reader.short().flatMap({ String(validating: $0, as: UTF8.self) }) else { return nil }
            audience = audienceKind == 1 ? .viewer(id) : .everyoneExcept(id)
        default: return nil
        }
        guard let v1 = reader.long(), let v2 = reader.long(), reader.atEnd else { return nil }
        return RelayEnvelope(kind: kind, epoch: epoch, sequence: sequence, publishedAt: Double(bitPattern: published),
                             node: node, audience: audience, v1: v1, v2: v2)
    }

    private static func append(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func appendShort(_ bytes: [UInt8], to out: inout [UInt8]) {
        let count = min(bytes.count, Int(UInt16.max))
        out.append(UInt8(count >> 8))
        out.append(UInt8(count & 0xFF))
        out.append(contentsOf: bytes.prefix(count))
    }

    private static func appendLong(_ bytes: [UInt8]?, to out: inout [UInt8]) {
        let count = bytes.map { UInt32($0.count) } ?? UInt32.max
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        if let bytes { out.append(contentsOf: bytes) }
    }

    /// Reads big-endian fields off the front of the bytes; nil past the end.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func u64() -> UInt64? {
            guard bytes.count - index >= 8 else { return nil }
            var value: UInt64 = 0
            for _ in 0..<8 { value = value << 8 | UInt64(bytes[index]); index += 1 }
            return value
        }

        mutating func short() -> [UInt8]? {
            guard bytes.count - index >= 2 else { return nil }
            let count = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            index += 2
            return take(count)
        }

        /// The bytes of a u32-prefixed field: .some(nil) when marked absent, nil when damaged.
        mutating func long() -> [UInt8]?? {
            guard bytes.count - index >= 4 else { return nil }
            var count: UInt32 = 0
            for _ in 0..<4 { count = count << 8 | UInt32(bytes[index]); index += 1 }
            if count == UInt32.max { return .some(nil) }
            return take(Int(count)).map { .some($0) }
        }

        private mutating func take(_ count: Int) -> [UInt8]? {
            guard bytes.count - index >= count else { return nil }
            defer { index += count }
            return Array(bytes[index..<index + count])
        }
    }
}
