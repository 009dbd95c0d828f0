extension EngineMath {
    /// x^y, within 1 ulp (see `EngineMath`), with C99 Annex F's special cases: x^±0 = 1 and
    /// 1^y = 1 even for NaN; a negative x only to an integer power; ±0 and ±∞ by the sign of y
    /// (and of x, for an odd integer y); |x| ≠ 1 to ±∞ gives 0 or +∞.
    package static func pow(_ x: Double, _ y: Double) -> Double {
        if y == 0 || x == 1 { return 1 }
        if x.isNaN || y.isNaN { return x + y }
        let magnitude = x.magnitude
        if y.isInfinite {
            if magnitude == 1 { return 1 }
            return (magnitude < 1) == (y < 0) ? .infinity : 0
        }
        let integer = y.magnitude >= 0x1p52 || Double(Int64(y)) == y  // every double from 2^52 on is one
        let odd = integer && y.magnitude < 0x1p53 && Int64(y) & 1 == 1
        let negative = x.sign == .minus && odd
        if x == 0 || x.isInfinite {
            let result: Double = (x == 0) == (y < 0) ? .infinity : 0
            return negative ? -result : result
        }
        if x < 0 && !integer { return .nan }
        if magnitude == 1 { return negative ? -1 : 1 }  // (−1)^y: no logarithm needed
        let result = positivePower(magnitude, y)
        return negative ? -result : result
    }

    /// x^y for x > 0 finite, x ≠ 1, y finite and not 0: e^(y · ln x) with ln x to 106 bits and
    /// y · ln x to about 70.
    private static func positivePower(_ x: Double, _ y: Double) -> Double {
        let lnX = logExtended(x)
        let z = y * lnX.hi
        // Decided before Dekker's product, which needs |y| < 2^996: past these e^z is +∞ or 0
        // whatever the low bits (|ln x| ≥ 2^-53 for x ≠ 1, so |y| stays below 2^63 beyond here).
        if z > 710 { return .infinity }
        if z < -746 { return 0 }
        let product = DoubleDouble.product(y, lnX.hi)
        return exp(product.hi, plus: product.lo + y * lnX.lo)
    }
}
