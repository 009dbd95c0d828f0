/// Big-endian fields of the cluster's binary messages (`RelayEnvelope`, `NodeMessage`,
/// `RelayedInput`): fixed-size integers and doubles, u16- and u32-prefixed byte strings.
enum ClusterBytes {
    static func append(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func append(_ value: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func append(_ value: Double, to out: inout [UInt8]) {
        append(value.bitPattern, to: &out)
    }

    /// u16 length + bytes (longer ones are cut at 65,535 bytes).
    static func appendShort(_ bytes: [UInt8], to out: inout [UInt8]) {
        let count = min(bytes.count, Int(UInt16.max))
        out.append(UInt8(count >> 8))
        out.append(UInt8(count & 0xFF))
        out.append(contentsOf: bytes.prefix(count))
    }

    /// u32 length + bytes; absent is 0xFFFFFFFF.
    static func appendLong(_ bytes: [UInt8]?, to out: inout [UInt8]) {
        append(bytes.map { UInt32($0.count) } ?? UInt32.max, to: &out)
        if let bytes { out.append(contentsOf: bytes) }
    }
}

/// Reads big-endian fields off the front of the bytes; nil past the end.
struct ClusterBytesReader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    /// Everything not read yet.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { index = bytes.count }
        return bytes[index...]
    }

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

    mutating func u32() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(bytes[index]); index += 1 }
        return value
    }

    mutating func double() -> Double? {
        u64().map(Double.init(bitPattern:))
    }

    mutating func short() -> [UInt8]? {
        guard bytes.count - index >= 2 else { return nil }
        let count = Int(bytes[index]) << 8 | Int(bytes[index + 1])
        index += 2
        return take(count)
    }

    /// A u16-prefixed UTF-8 string.
    mutating func text() -> String? {
        short().flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes of a u32-prefixed field: .some(nil) when marked absent, nil when damaged.
    mutating func long() -> [UInt8]?? {
        guard let count = u32() else { return nil }
        if count == UInt32.max { return .some(nil) }
        return take(Int(count)).map { .some($0) }
    }

    private mutating func take(_ count: Int) -> [UInt8]? {
        guard bytes.count - index >= count else { return nil }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }
}
