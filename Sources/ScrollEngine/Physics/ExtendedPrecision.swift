// Error-free transformations (Knuth's two-sum, Dekker's two-product with Veltkamp's split) and
// double-double arithmetic built on them: the extra precision EngineMath needs to round its
// results once at the end. Every step is an IEEE 754 +, −, × or ÷ rounded to nearest, so the
// results are the same bits on every platform. No fused multiply-add: Swift never contracts
// `a * b + c` into one (it emits no `contract` flag; checked on arm64, docs/wasm.md), and Dekker's
// product needs none.

/// An unevaluated sum `hi + lo` of two doubles carrying about 106 bits; normalised when
/// `hi` is `hi + lo` rounded to nearest.
struct DoubleDouble: Sendable, Hashable {
    var hi: Double
    var lo: Double

    init(_ hi: Double, _ lo: Double = 0) {
        self.hi = hi
        self.lo = lo
    }

    /// `a + b` exactly, for any finite a and b (Knuth's two-sum, six operations).
    @inline(__always) static func sum(_ a: Double, _ b: Double) -> DoubleDouble {
        let s = a + b
        let bPart = s - a
        let aPart = s - bPart
        return DoubleDouble(s, (a - aPart) + (b - bPart))
    }

    /// `a + b` exactly when |a| ≥ |b| or a is 0 (Dekker's fast two-sum); also the normalisation.
    @inline(__always) static func fastSum(_ a: Double, _ b: Double) -> DoubleDouble {
        let s = a + b
        return DoubleDouble(s, b - (s - a))
    }

    /// `a · b` exactly (Dekker's product), when |a|, |b| < 2^996 and no partial product
    /// underflows: each factor is split into two 26-bit halves whose products are exact.
    @inline(__always) static func product(_ a: Double, _ b: Double) -> DoubleDouble {
        let p = a * b
        let (aHi, aLo) = split(a), (bHi, bLo) = split(b)
        return DoubleDouble(p, ((aHi * bHi - p) + aHi * bLo + aLo * bHi) + aLo * bLo)
    }

    /// Veltkamp's split: `a = hi + lo` exactly with `hi` of 26 significant bits and `lo` of 26.
    @inline(__always) static func split(_ a: Double) -> (Double, Double) {
        let c = 134_217_729.0 * a  // 2^27 + 1
        let hi = c - (c - a)
        return (hi, a - hi)
    }

    /// The sum, normalised; relative error about 2^-104 unless the operands nearly cancel.
    static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let s = sum(a.hi, b.hi)
        return fastSum(s.hi, s.lo + (a.lo + b.lo))
    }

    /// The product, normalised; relative error about 2^-102.
    static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let p = product(a.hi, b.hi)
        return fastSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi))
    }
}
