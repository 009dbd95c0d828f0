/// A version-2 `num` (docs/protocol.md, "`batch` (`10`)"): a double written as a small exact
/// varint where it is one, else as its 8 bytes, so a batch's coordinates and times are short yet
/// every value decodes to the very double the room applied (replay stays bit-identical).
///
/// A `uvar` h; its two low bits say how (`h mod 4`), the rest (`m = h div 4`, zigzag) is a count:
/// 0: m / 256 (a 1/256 pt or ms), 1: m / 100 (version 1's 0.01), 2: m is 0 and an `f64` follows,
/// 3: refused. A time is written as a Δ (`base` + the count's value, one IEEE addition) only
/// where that sum gives it exactly; tag 2 then carries the value itself, not a Δ.
public enum CompactNumber {
    /// The head of a `num` whose f64 follows.
    public static let f64Tag: UInt64 = 2
    /// Largest count magnitude: 2^50 − 1, so that `h` stays within 2^53 − 1.
    static let maxCount = Double((1 << 50) - 1)

    /// The count for `x` in tag `tag` (0 or 1), when that tag gives back exactly `x`.
    static func count(_ x: Double, tag: UInt64) -> Int64? {
        guard x.isFinite, !(x == 0 && x.sign == .minus) else { return nil }
        let scaled = tag == 0 ? x * 256 : (x * 100).rounded()
        guard scaled.magnitude <= maxCount, scaled == scaled.rounded() else { return nil }
        let n = Int64(scaled)
        return value(count: n, tag: tag).bitPattern == x.bitPattern ? n : nil
    }

    /// What count `n` in tag `tag` (0 or 1) stands for.
    static func value(count n: Int64, tag: UInt64) -> Double {
        // + 0 turns -0 into 0: a count of 0 is +0, and -0 goes as an f64.
        tag == 0 ? Double(n) / 256 + 0 : Double(n) / 100 + 0
    }

    /// What a `num` with head `h` counts (tags 0 and 1); nil for tag 2 (an f64 follows) or 3.
    public static func value(head h: UInt64) -> Double? {
        let tag = h & 3
        guard tag < 2 else { return nil }
        let z = Int64(h >> 2)
        return value(count: (z >> 1) ^ -(z & 1), tag: tag)
    }

    /// The head `h` for count `n` in tag `tag`.
    static func head(count n: Int64, tag: UInt64) -> UInt64 {
        UInt64(bitPattern: (n << 1) ^ (n >> 63)) << 2 | tag
    }
}

extension BinaryWriter {
    /// `x` as a `num`: 1/256 units, else 0.01 units, else the f64.
    mutating func compact(_ x: Double) {
        for tag: UInt64 in [0, 1] {
            if let n = CompactNumber.count(x, tag: tag) { return uvarint(CompactNumber.head(count: n, tag: tag)) }
        }
        uvarint(CompactNumber.f64Tag)
        float64(x)
    }

    /// `x` as a `num` Δ from `base`: a count whose value added to `base` gives exactly `x`, else
    /// `x` itself as an f64 (tag 2).
    mutating func compact(_ x: Double, from base: Double) {
        let d = x - base
        for tag: UInt64 in [0, 1] {
            if let n = CompactNumber.count(d, tag: tag), (base + CompactNumber.value(count: n, tag: tag)).bitPattern == x.bitPattern {
                return uvarint(CompactNumber.head(count: n, tag: tag))
            }
        }
        uvarint(CompactNumber.f64Tag)
        float64(x)
    }
}

extension BinaryReader {
    /// A `num`; with `base`, a Δ from it (tags 0 and 1), the f64 of tag 2 as it is.
    mutating func compact(_ name: @autoclosure () -> String, from base: Double? = nil) throws(WireError) -> Double {
        let (x, isCount) = try compactPart(name(), delta: base != nil)
        guard let base, isCount else { return x }
        return base + x
    }

    /// A `num` as written: the count's value (`isCount`), or tag 2's f64. `delta` only names it so.
    mutating func compactPart(_ name: @autoclosure () -> String, delta: Bool) throws(WireError) -> (x: Double, isCount: Bool) {
        let start = index
        let savedTrace = trace
        trace = nil
        let h: UInt64
        do { h = try uvarint(name()) } catch { trace = savedTrace; throw error }
        trace = savedTrace
        let tag = h & 3
        let z = Int64(h >> 2)
        switch tag {
        case CompactNumber.f64Tag:
            guard z == 0 else { throw WireError("\(name()): an f64 number's head must be 2") }
            Self.report(trace, name, start..<index, "f64 follows")
            return (try float64(name()), false)
        case 0, 1:
            let n = (z >> 1) ^ -(z & 1)
            let x = CompactNumber.value(count: n, tag: tag)
            Self.report(trace, name, start..<index, "\(n)/\(tag == 0 ? 256 : 100)\(delta ? " Δ" : "") = \(x)")
            return (x, true)
        default:
            throw WireError("\(name()): number tag 3 is reserved")
        }
    }
}
