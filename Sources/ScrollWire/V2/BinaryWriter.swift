/// Writes the pieces of a version-2 message (docs/protocol.md, "Version 2"): bytes, LEB128
/// varints, zigzag varints, length-prefixed UTF-8 strings and little-endian float64s.
struct BinaryWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// A 64-bit unsigned integer, 8 bytes little-endian (a beat's hash).
    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Bytes as they are (a snapshot's state, after its length).
    mutating func raw(_ values: [UInt8]) {
        bytes.append(contentsOf: values)
    }

    /// An unsigned LEB128 varint: 7 bits a byte, least significant first, the high bit set on
    /// every byte but the last. Negative values (which no caller has) are written as 0, and
    /// values beyond 2^53 − 1 as 2^53 − 1, so the output always decodes.
    mutating func uvarint(_ value: Int) {
        uvarint(UInt64(clamping: value))
    }

    mutating func uvarint(_ value: UInt64) {
        var v = min(value, ScrollWire.maxSafeInteger)
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A signed value as a zigzag varint: 0, -1, 1, -2, 2 … become 0, 1, 2, 3, 4 …, so small
    /// magnitudes of either sign take one byte. Clamped to ±(2^52 − 1), so the zigzag value stays
    /// within 2^53 − 1 (what a JavaScript number holds exactly).
    mutating func svarint(_ value: Int64) {
        let v = min(max(value, -BinaryWriter.maxSigned), BinaryWriter.maxSigned)
        uvarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    mutating func svarint(_ value: Int) {
        svarint(Int64(value))
    }

    /// Largest magnitude of a signed varint: 2^52 − 1.
    static let maxSigned: Int64 = (1 << 52) - 1

    /// A number at a fixed precision: `WirePrecision` units as a zigzag varint.
    mutating func fixed(_ x: Double, _ precision: WirePrecision) {
        svarint(precision.wireUnits(x))
    }

    /// A string: its UTF-8 length as a varint, then the bytes.
    mutating func string(_ s: String) {
        withUTF8Bytes(s) { utf8 in
            uvarint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// An IEEE-754 double, little-endian (8 bytes), for the scene's values that v1 writes at full
    /// precision.
    mutating func float64(_ x: Double) {
        var bits = x.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }
}

extension WirePrecision {
    /// Largest magnitude of a version-2 fixed-point value, in units: 10^15, the bound within which
    /// version 1 rounds (see `largestScaledMagnitude`).
    static let largestWireUnits: Int64 = 1_000_000_000_000_000

    /// `x` in units of 10^-decimals as version 2 writes it: `units(x)`, the same rounding as
    /// version 1, with NaN as 0 and anything beyond ±10^15 units (±infinity included) clamped to
    /// ±10^15. Version 1 writes those few at full precision instead; no real frame has them
    /// (10^13 pt).
    func wireUnits(_ x: Double) -> Int64 {
        if let n = units(x) { return n }
        if x.isNaN { return 0 }
        return x < 0 ? -Self.largestWireUnits : Self.largestWireUnits
    }

    /// The double a version-2 client decodes from `units`: units / 10^decimals.
    func value(units: Int64) -> Double {
        Double(units) / scale
    }
}
