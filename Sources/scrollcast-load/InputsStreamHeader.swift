import ScrollWire

/// `--stream inputs`: what a viewer needs of a `batch` or hashed `beat` (docs/protocol.md, "The
/// inputs stream"), read from the message's fixed front without decoding its entries, so that
/// every viewer but the room's replica pays a few byte reads per message, not a decode.
enum InputsStreamHeader: Equatable {
    /// A `batch`: the number of its last change, how many changes it holds, its complete mark.
    case batch(changes: UInt64, count: UInt64, complete: Double)
    /// A `beat`: its room time, its complete mark, and the frame hash (inputs stream only).
    case beat(time: Double, complete: Double, hash: UInt64?)

    /// The header of a version-2 `batch` (type 16) or `beat` (10, 17); nil for anything else or a
    /// front that is not well formed. Never traps.
    static func v2(_ bytes: UnsafeBufferPointer<UInt8>) -> InputsStreamHeader? {
        var r = FrontReader(bytes: bytes)
        switch r.byte() {
        case ServerMessageTypeV2.batch.rawValue:
            // The front: changes, count, the last change's time, the mark as a Δ from it.
            guard let changes = r.uvarint(), let count = r.uvarint(), count <= changes else { return nil }
            let last = count > 0 ? r.number() : 0
            guard let last, let complete = r.number(from: count > 0 ? last : nil) else { return nil }
            return .batch(changes: changes, count: count, complete: complete)
        case ServerMessageTypeV2.hashedBeat.rawValue:
            // `t` a num, the mark a num Δ from it, the hash.
            guard let time = r.number(), let complete = r.number(from: time), let hash = r.u64() else { return nil }
            return .beat(time: time, complete: complete, hash: hash)
        case ServerMessageTypeV2.beat.rawValue:
            guard let time = r.float64(), let complete = r.float64() else { return nil }
            return .beat(time: time, complete: complete, hash: nil)
        default:
            return nil
        }
    }

    /// The same for a decoded message (version 1, whose JSON has no fixed front to read).
    static func of(_ message: ServerMessage) -> InputsStreamHeader? {
        switch message {
        case .batch(let batch):
            return .batch(changes: batch.changes, count: UInt64(batch.applied.count), complete: batch.complete)
        case .beat(let beat):
            return .beat(time: beat.time, complete: beat.complete, hash: beat.hash)
        default:
            return nil
        }
    }
}

/// Little-endian fields and LEB128 varints from the front of a message; nil past its end.
private struct FrontReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        index += 1
        return bytes[index - 1]
    }

    mutating func uvarint() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 63, by: 7) {
            guard let b = byte() else { return nil }
            value |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return value }
        }
        return nil
    }

    mutating func u64() -> UInt64? {
        guard bytes.count - index >= 8 else { return nil }
        var value: UInt64 = 0
        for k in 0..<8 { value |= UInt64(bytes[index + k]) << (8 * UInt64(k)) }
        index += 8
        return value
    }

    mutating func float64() -> Double? {
        u64().map(Double.init(bitPattern:)).flatMap { $0.isFinite ? $0 : nil }
    }

    /// A version-2 `num` (docs/protocol.md, "`batch` (`10`)"); a count is a Δ from `base`.
    mutating func number(from base: Double? = nil) -> Double? {
        guard let h = uvarint() else { return nil }
        if h == CompactNumber.f64Tag { return float64() }
        guard let x = CompactNumber.value(head: h) else { return nil }
        return base.map { $0 + x } ?? x
    }
}
