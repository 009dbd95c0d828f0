import ScrollcastRooms
import ScrollWire

/// What a room's owner publishes on the room's channel, for the nodes with viewers of it: a
/// message in the forms its viewers there speak, whom it is for, and the owner's epoch, so a
/// node drops anything from an owner that has been replaced. Binary, big-endian:
///
/// ```
/// u8 format (1) · u8 kind (1 reliable, 2 frame, 3 owner, 4 moved to frames) · u64 epoch · u64 seq (frames)
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
        /// The viewer in the audience now takes frames, not the inputs stream (it kept asking
        /// for keyframes); its node delivers it frames from now on. No forms.
        case movedToFrames = 4
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
        ClusterBytes.append(epoch, to: &out)
        ClusterBytes.append(sequence, to: &out)
        ClusterBytes.append(publishedAt.bitPattern, to: &out)
        ClusterBytes.appendShort(Array(node.utf8), to: &out)
        switch audience {
        case .everyone: out.append(0)
        case .viewer(let id): out.append(1); ClusterBytes.appendShort(Array(id.utf8), to: &out)
        case .everyoneExcept(let id): out.append(2); ClusterBytes.appendShort(Array(id.utf8), to: &out)
        case .inputWatchers: out.append(3)
        case .completeWatchers: out.append(4)
        case .inputsStream: out.append(5)
        case .framesStream: out.append(6)
        case .framesStreamExcept(let id): out.append(7); ClusterBytes.appendShort(Array(id.utf8), to: &out)
        case .inputsBatches(let batchMs): out.append(8); ClusterBytes.append(UInt64(max(batchMs, 0)), to: &out)
        }
        ClusterBytes.appendLong(v1, to: &out)
        ClusterBytes.appendLong(v2, to: &out)
        return out
    }

    /// Decodes an envelope; nil for anything else (a newer format, or damaged bytes).
    static func decode(_ bytes: [UInt8]) -> RelayEnvelope? {
        var reader = ClusterBytesReader(bytes: bytes)
        guard reader.byte() == format, let kind = reader.byte().flatMap(Kind.init(rawValue:)),
              let epoch = reader.u64(), let sequence = reader.u64(), let published = reader.u64(),
              let node = reader.short().flatMap({ String(validating: $0, as: UTF8.self) }),
              let audienceKind = reader.byte() else { return nil }
        let audience: Audience
        switch audienceKind {
        case 0: audience = .everyone
        case 3: audience = .inputWatchers
        case 4: audience = .completeWatchers
        case 5: audience = .inputsStream
        case 6: audience = .framesStream
        case 8:
            guard let batchMs = reader.u64(), batchMs <= UInt64(ScrollWire.batchPeriodRange.upperBound) else { return nil }
            audience = .inputsBatches(Int(batchMs))
        case 1, 2, 7:
            guard let id = reader.short().flatMap({ String(validating: $0, as: UTF8.self) }) else { return nil }
            audience = audienceKind == 1 ? .viewer(id) : audienceKind == 2 ? .everyoneExcept(id) : .framesStreamExcept(id)
        default: return nil
        }
        guard let v1 = reader.long(), let v2 = reader.long(), reader.atEnd else { return nil }
        return RelayEnvelope(kind: kind, epoch: epoch, sequence: sequence, publishedAt: Double(bitPattern: published),
                             node: node, audience: audience, v1: v1, v2: v2)
    }
}
