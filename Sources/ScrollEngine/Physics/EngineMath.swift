/// The engine's own transcendental functions: e^x, ln x and x^y, built only from IEEE 754
/// +, −, ×, ÷, comparisons, conversions between Double and Int and the bits of a Double, so the
/// server on any platform (whatever its C library's `exp`, `log` and `pow` do) and the
/// WebAssembly module compute the very same bits by construction (docs/wasm.md, "The engine's
/// own math"). The engine calls no C math library.
///
/// Accuracy, for every argument (subnormal, huge, ±0, ±∞ and NaN included): within 0.54 ulp of
/// the exact value (the error before the one final rounding stays under 0.04 ulp), within 1 ulp
/// when the result is subnormal: almost always the correctly rounded double (EngineMathTests
/// checks it; the errors measured are in docs/wasm.md). Each function works in double-double
/// precision and rounds once at the end:
///
/// - `log`: x = 2^k · m with m in [√2/2, √2); ln m = 2·atanh(s), s = (m − 1)/(m + 1), whose
///   series 2s·(1 + s²/3 + s⁴/5 + …) is summed to s²⁷ (|s| ≤ 0.172, truncation below 2^-76
///   relative), the first terms in double-double; plus k·ln 2 in double-double.
/// - `exp`: x = k·ln 2 + r with |r| ≤ ln 2 / 2 (Cody and Waite's reduction, with ln 2 to 106
///   bits); e^r by its Taylor series to r¹⁴ (truncation below 2^-63), 1 + r + r²/2 summed exactly;
///   then scaled by 2^k through the exponent bits.
/// - `pow`: e^(y · ln x) with ln x in double-double, so y · ln x keeps about 70 bits even when
///   it is near the overflow threshold 709.78, where an error of 2^-60 in it would already move the
///   result by a hundredth of an ulp. Special cases follow C99 Annex F (IEEE 754's `pow`).
package enum EngineMath {
    /// ln 2 to 106 bits: `ln2.hi + ln2.lo`. (Computed, not a stored `static let`, which would be
    /// initialised lazily behind a `swift_once` check on every use.)
    static var ln2: DoubleDouble { DoubleDouble(0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56) }

    /// e^x. Overflows to +∞ above 709.78, underflows to 0 below −745.13; exp(±0) = 1.
    package static func exp(_ x: Double) -> Double {
        exp(x, plus: 0)
    }

    /// ln x. ln 1 = +0, ln ±0 = −∞, ln +∞ = +∞, NaN for x < 0 and for NaN.
    package static func log(_ x: Double) -> Double {
        guard x > 0, x < .infinity else {
            if x == 0 { return -.infinity }
            return x == .infinity ? x : .nan
        }
        return logExtended(x).hi
    }

    /// e^(hi + lo) for |lo| well under ulp(hi): `exp` with the low part of a double-double
    /// argument, which `pow` needs.
    static func exp(_ hi: Double, plus lo: Double) -> Double {
        if hi.isNaN { return hi }
        if hi > 710 { return .infinity }  // e^709.79 already exceeds the largest double
        if hi < -746 { return 0 }         // e^-745.14 already rounds to 0
        // k = hi / ln 2 rounded to nearest (half away from zero): any fixed choice would do.
        let k = Int(hi * 0x1.71547652b82fep0 + (hi < 0 ? -0.5 : 0.5))
        let kd = Double(k)
        // r = hi − k·ln 2 + lo as a double-double. k·ln2.hi is exact (Dekker), hi − its high
        // part is exact (Sterbenz: hi and k·ln 2 are within a factor 2), the rest is tiny.
        let kLn2 = DoubleDouble.product(kd, ln2.hi)
        let head = hi - kLn2.hi
        let r = DoubleDouble.sum(head, (lo - kLn2.lo) - kd * ln2.lo)
        return scaled(expReduced(r), byPowerOfTwo: k)
    }

    /// e^r for |r| ≤ 0.35 as a normalised double-double (error below 0.04 ulp of its high part): 1 + r + r²/2 summed
    /// exactly, the rest of the Taylor series to r¹⁴ (under 0.007) in double, and
    /// e^r.hi · r.lo to first order.
    private static func expReduced(_ r: DoubleDouble) -> DoubleDouble {
        let x = r.hi
        // 1/3! … 1/14!, each the quotient rounded once (IEEE division, folded at compile time).
        var p = 1.0 / 87_178_291_200
        p = p * x + 1.0 / 6_227_020_800
        p = p * x + 1.0 / 479_001_600
        p = p * x + 1.0 / 39_916_800
        p = p * x + 1.0 / 3_628_800
        p = p * x + 1.0 / 362_880
        p = p * x + 1.0 / 40_320
        p = p * x + 1.0 / 5_040
        p = p * x + 1.0 / 720
        p = p * x + 1.0 / 120
        p = p * x + 1.0 / 24
        p = p * x + 1.0 / 6
        let square = DoubleDouble.product(x, x)
        let halfSquare = DoubleDouble(square.hi * 0.5, square.lo * 0.5)
        let tail = x * square.hi * p + r.lo * (1 + x)
        let one = DoubleDouble.fastSum(1, x)
        let head = DoubleDouble.sum(one.hi, halfSquare.hi)
        return DoubleDouble.fastSum(head.hi, ((one.lo + head.lo) + halfSquare.lo) + tail)
    }

    /// (y.hi + y.lo) · 2^k rounded once, for y in [0.7, 1.5) and k in −1076…1024.
    private static func scaled(_ y: DoubleDouble, byPowerOfTwo k: Int) -> Double {
        if k > 1023 { return y.hi * powerOfTwo(1023) * 2 }  // exact, or +∞
        if k > -1022 || (k == -1022 && y.hi > 1) { return y.hi * powerOfTwo(k) }  // exact
        // A subnormal result is a whole number of 2^-1074: count them (exactly, in units of
        // 2^-1074, where hi and lo scale without rounding), round that count to nearest once,
        // and scale back, which is then exact. Scaling y.hi, already rounded, would round twice.
        let unit = powerOfTwo(k + 1074)
        let hi = y.hi * unit, lo = y.lo * unit
        let whole = (hi + 0x1p52) - 0x1p52  // hi (0 < hi ≤ 2^52) rounded to an integer
        let rest = (hi - whole) + lo            // hi − whole is exact
        let count = rest > 0.5 ? whole + 1 : rest < -0.5 ? whole - 1 : whole
        return count * 0x1p-1074
    }

    /// 2^k for k in −1022…1023, from its exponent bits.
    @inline(__always) private static func powerOfTwo(_ k: Int) -> Double {
        Double(bitPattern: UInt64(k + 1023) << 52)
    }

    /// ln x as a double-double (relative error below 2^-70), for x > 0 finite.
    static func logExtended(_ x: Double) -> DoubleDouble {
        // x = 2^k · m, m in [1, 2), then m in [√2/2, √2) so that |ln m| ≤ ln 2 / 2.
        var bits = x.bitPattern
        var k = -1023
        if bits >> 52 == 0 {  // subnormal: make it normal first (exact)
            bits = (x * 0x1p54).bitPattern
            k -= 54
        }
        k += Int(bits >> 52)
        var m = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)
        if m > 0x1.6a09e667f3bcdp0 {
            m *= 0.5
            k += 1
        }
        let f = m - 1  // exact (Sterbenz)
        // s = f / (2 + f) to 106 bits: 2 + f exactly as a double-double, then the quotient's
        // remainder f − s·(2 + f) exactly (Dekker's product; f − its high part is exact).
        let denominator = DoubleDouble.fastSum(2, f)
        let sHi = f / denominator.hi
        let back = DoubleDouble.product(sHi, denominator.hi)
        let remainder = ((f - back.hi) - back.lo) - sHi * denominator.lo
        let s = DoubleDouble.fastSum(sHi, remainder / denominator.hi)
        // ln m = 2s · (1 + w/3 + w²/5 + w³·q(w)), w = s² ≤ 0.0295; q in double (its terms are
        // below 2^-15 of the sum), the first three terms in double-double.
        let square = DoubleDouble.product(s.hi, s.hi)
        let w = DoubleDouble.fastSum(square.hi, square.lo + 2 * s.hi * s.lo)
        let v = w.hi
        var q = 1.0 / 27
        q = q * v + 1.0 / 25
        q = q * v + 1.0 / 23
        q = q * v + 1.0 / 21
        q = q * v + 1.0 / 19
        q = q * v + 1.0 / 17
        q = q * v + 1.0 / 15
        q = q * v + 1.0 / 13
        q = q * v + 1.0 / 11
        q = q * v + 1.0 / 9
        q = q * v + 1.0 / 7
        let oneFifth = DoubleDouble(0x1.999999999999ap-3, -0x1.999999999999ap-57)
        let oneThird = DoubleDouble(0x1.5555555555555p-2, 0x1.5555555555555p-56)
        var series = DoubleDouble(v * q) + oneFifth
        series = series * w + oneThird
        series = series * w + DoubleDouble(1)
        let lnM = DoubleDouble(2 * s.hi, 2 * s.lo) * series
        guard k != 0 else { return lnM }
        let kd = Double(k)
        let kLn2 = DoubleDouble.product(kd, ln2.hi) + DoubleDouble(kd * ln2.lo)
        return kLn2 + lnM
    }
}
