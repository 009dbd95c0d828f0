/// Why state bytes were refused (`ScrollScene(restoring:base:)`). The scene is not built.
public enum StateDecodingError: Error, Sendable {
    /// The bytes do not start with the state magic (`SCST`).
    case notState
    /// The bytes' format version is not the one this build reads.
    case formatVersion(UInt8)
    /// The bytes come from another engine version (`EngineVersion.current`).
    case engineVersion(UInt32)
    /// The bytes end before `field`.
    case truncated(field: StaticString)
    /// `field` holds a value that cannot be (unknown tag, out of range, not finite).
    case invalid(field: StaticString)
    /// Bytes are left after the state.
    case trailingBytes(Int)
}

// Field names are `StaticString`s and their text is made only here, natively: field names as
// `String`s cost the WebAssembly module ~30 KB (as `BinaryReader`'s trace did, docs/wasm.md,
// "Size"), and the page only needs the refusal's code.
#if !hasFeature(Embedded)
extension StateDecodingError: Hashable {
    /// Field names compare by their text (`StaticString` is not `Hashable`).
    private var key: String { "\(self)" }
    public static func == (a: Self, b: Self) -> Bool { a.key == b.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

extension StateDecodingError: CustomStringConvertible {
    /// The refusal in words, for logs, close reasons and CLI messages.
    public var description: String {
        switch self {
        case .notState: return "not engine state bytes (no SCST magic)"
        case .formatVersion(let v): return "state format version \(v) is not \(StateWriter.formatVersion)"
        case .engineVersion(let v): return "state from engine version \(v), this engine is \(EngineVersion.current)"
        case .truncated(let field): return "state bytes end before '\(field)'"
        case .invalid(let field): return "state field '\(field)' is invalid"
        case .trailingBytes(let n): return "\(n) bytes after the end of the state"
        }
    }
}
#endif

/// Little-endian writer of the state bytes: fixed-width integers and doubles by bit pattern (so
/// −∞ and every finite value come back bit-identical), and unsigned LEB128 for counts.
struct StateWriter {
    static let magic: [UInt8] = [0x53, 0x43, 0x53, 0x54]  // "SCST"
    static let formatVersion: UInt8 = 1

    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func u32(_ value: UInt32) {
        for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(k)))) }
    }

    mutating func u64(_ value: UInt64) {
        for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
    }

    mutating func double(_ value: Double) { u64(value.bitPattern) }

    mutating func uvarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: v) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
    }

    mutating func count(_ value: Int) { uvarint(UInt64(value)) }

    /// A signed integer, zigzag-coded so small negatives stay short.
    mutating func svarint(_ value: Int) {
        let v = Int64(value)
        uvarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }
}

/// Reads what `StateWriter` wrote, naming the field in every refusal.
struct StateReader {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - at }

    mutating func byte(_ field: StaticString) throws(StateDecodingError) -> UInt8 {
        guard at < bytes.count else { throw .truncated(field: field) }
        at += 1
        return bytes[at - 1]
    }

    mutating func bool(_ field: StaticString) throws(StateDecodingError) -> Bool {
        switch try byte(field) {
        case 0: return false
        case 1: return true
        default: throw .invalid(field: field)
        }
    }

    mutating func u32(_ field: StaticString) throws(StateDecodingError) -> UInt32 {
        UInt32(truncatingIfNeeded: try littleEndian(4, field))
    }

    mutating func u64(_ field: StaticString) throws(StateDecodingError) -> UInt64 { try littleEndian(8, field) }

    /// `width` bytes, least significant first.
    private mutating func littleEndian(_ width: Int, _ field: StaticString) throws(StateDecodingError) -> UInt64 {
        guard remaining >= width else { throw .truncated(field: field) }
        var v: UInt64 = 0
        for k in 0..<width { v |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
        at += width
        return v
    }

    /// A double that must not be NaN (the engine never holds one; ±∞ marks "never" and "until further notice").
    mutating func double(_ field: StaticString) throws(StateDecodingError) -> Double {
        let value = Double(bitPattern: try u64(field))
        guard !value.isNaN else { throw .invalid(field: field) }
        return value
    }

    mutating func finite(_ field: StaticString) throws(StateDecodingError) -> Double {
        let value = try double(field)
        guard value.isFinite else { throw .invalid(field: field) }
        return value
    }

    mutating func uvarint(_ field: StaticString) throws(StateDecodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte(field)
            guard shift < 64, shift < 63 || b <= 1 else { throw .invalid(field: field) }
            value |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return value }
            shift += 7
        }
    }

    /// A count, at most `limit` (and never more than the bytes left could hold, so a garbled
    /// count cannot make the decoder reserve memory for it).
    mutating func count(_ field: StaticString, limit: Int) throws(StateDecodingError) -> Int {
        let value = try uvarint(field)
        guard value <= UInt64(limit) else { throw .invalid(field: field) }
        return Int(value)
    }

    mutating func svarint(_ field: StaticString) throws(StateDecodingError) -> Int {
        let u = try uvarint(field)
        let v = Int64(bitPattern: (u >> 1)) ^ -Int64(bitPattern: u & 1)
        guard v >= Int64(Int.min), v <= Int64(Int.max) else { throw .invalid(field: field) }
        return Int(truncatingIfNeeded: v)
    }
}
