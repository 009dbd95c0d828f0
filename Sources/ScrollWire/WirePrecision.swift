/// How finely a per-frame number is written (docs/protocol.md, "Number precision").
///
/// Frames go to every viewer 60+ times a second, so their coordinates are written to a fixed
/// number of decimals rather than 17 significant digits: 0.01 pt is far below a device pixel,
/// and 0.001 of an alpha below one step of an 8-bit channel. The rule is exact and platform
/// independent: `n = (x · 10^decimals).rounded()` in IEEE-754 double arithmetic (halfway cases
/// away from zero), written as the decimal n / 10^decimals. That decimal is also the shortest
/// round-trip spelling of `rounded(x)`, so a client parsing it gets exactly `rounded(x)`.
public struct WirePrecision: Sendable, Equatable {
    /// Digits after the decimal point, 1…6.
    public let decimals: Int
    /// 10^decimals, exactly representable as a double.
    let scale: Double
    private let scaleInteger: UInt64

    private init(decimals: Int) {
        precondition((1...6).contains(decimals), "WirePrecision supports 1…6 decimals")
        self.decimals = decimals
        var power: UInt64 = 1
        for _ in 0..<decimals { power *= 10 }
        scaleInteger = power
        scale = Double(power)
    }

    /// Positions, sizes and offsets in points: 0.01 pt.
    public static let points = WirePrecision(decimals: 2)
    /// Alphas and the lift amount, all in 0…1: 0.001.
    public static let fraction = WirePrecision(decimals: 3)
    /// Times in milliseconds (`t`, `sentAt`): 0.01 ms.
    public static let milliseconds = WirePrecision(decimals: 2)

    /// Largest |x · 10^decimals| that is rounded. Any decimal of at most 15 significant digits
    /// survives decimal → double → shortest decimal unchanged, which is what makes n / 10^decimals
    /// the shortest spelling. Beyond it (1e13 pt or ms at two decimals, far outside any real
    /// value) numbers are written at full precision.
    static let largestScaledMagnitude: Double = 1e15

    /// `x` rounded to this precision: exactly the double a client gets by parsing what the
    /// encoder writes for `x`. Non-finite and out-of-range values come back unchanged, and
    /// -0 (or anything that rounds to zero) becomes +0.
    public func rounded(_ x: Double) -> Double {
        guard let units = units(x) else { return x }
        return Double(units) / scale
    }

    /// `x` in units of 10^-decimals, or nil when it is written at full precision instead
    /// (non-finite, or too large for the shortest-spelling guarantee).
    func units(_ x: Double) -> Int64? {
        let scaled = x * scale
        guard scaled.isFinite, scaled.magnitude < Self.largestScaledMagnitude else { return nil }
        return Int64(scaled.rounded(.toNearestOrAwayFromZero))
    }

    /// Splits a unit count into its integral part and its fraction digits with trailing zeros
    /// dropped: 56162 → (561, 62, 2 digits); 12050 at 3 decimals → (12, 5, 2 digits, i.e. "05").
    func split(_ magnitude: UInt64) -> (integral: UInt64, fraction: UInt64, fractionDigits: Int) {
        var fraction = magnitude % scaleInteger
        var digits = fraction == 0 ? 0 : decimals
        while digits > 0, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        return (magnitude / scaleInteger, fraction, digits)
    }
}
