#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import ScrollEngine

/// What EngineMathTests measures the engine's functions against: the C library's `expl`, `logl`
/// and `powl` on a 64-bit significand (x86-64's Float80: 11 bits beyond a double, so the exact
/// value to within 1/1000 ulp), and the C library's double functions, which are not exact but
/// must never be more than 1 ulp away.
enum EngineMathReference {
    /// The ulp error bound EngineMath documents (doc comment, docs/wasm.md) for normal results.
    static let documentedBound = 0.54

    #if arch(x86_64)
    /// Whether the exact reference is available here (on x86-64 only).
    static let hasExtended = true
    /// `got`'s error in ulps against the 64-bit-significand value (nil where there is none).
    static func error(_ got: Double, exp x: Double) -> Double? { ulpError(got, expl(Float80(x))) }
    static func error(_ got: Double, log x: Double) -> Double? { ulpError(got, logl(Float80(x))) }
    static func error(_ got: Double, pow x: Double, _ y: Double) -> Double? { ulpError(got, powl(Float80(x), Float80(y))) }

    /// |got − exact| in ulps of the exact value's double (0 when both are the same NaN or ∞).
    static func ulpError(_ got: Double, _ exact: Float80) -> Double {
        if exact.isNaN || got.isNaN { return exact.isNaN && got.isNaN ? 0 : .infinity }
        let rounded = Double(exact)
        if rounded.isInfinite || got.isInfinite { return got == rounded ? 0 : .infinity }
        return Double(((Float80(got) - exact) / Float80(ulp(of: exact))).magnitude)
    }

    /// The spacing of doubles at `exact`: below a power of two, the finer spacing below it.
    static func ulp(of exact: Float80) -> Double {
        let rounded = Double(exact).magnitude
        if rounded == 0 { return Double.leastNonzeroMagnitude }
        if rounded.significandBitPattern == 0, Float80(rounded) > exact.magnitude { return rounded.nextDown.ulp }
        return rounded.ulp
    }
    #else
    static let hasExtended = false
    static func error(_ got: Double, exp x: Double) -> Double? { nil }
    static func error(_ got: Double, log x: Double) -> Double? { nil }
    static func error(_ got: Double, pow x: Double, _ y: Double) -> Double? { nil }
    #endif

    /// |a − b| in ulps of b (b the platform's libm result); 0 for equal NaN/∞ results.
    static func ulpsApart(_ a: Double, _ b: Double) -> Double {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : .infinity }
        if a == b { return 0 }
        if a.isInfinite || b.isInfinite { return .infinity }
        let spacing = b == 0 ? Double.leastNonzeroMagnitude : Swift.min(b.magnitude.ulp, b.magnitude.nextDown.ulp)
        return (a - b).magnitude / spacing
    }

    static func libm(exp x: Double) -> Double { exp(x) }
    static func libm(log x: Double) -> Double { log(x) }
    static func libm(pow x: Double, _ y: Double) -> Double { pow(x, y) }
}

/// A seeded source of test arguments.
struct Arguments {
    var random = SeededRandom(seed: 0x5EED_0E47)

    /// Uniform in [a, b].
    mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * Double(random.next() >> 11) * 0x1p-53
    }

    /// Any positive finite double, each binade equally likely (subnormals included).
    mutating func positiveBits() -> Double {
        while true {
            let x = Double(bitPattern: random.next() >> 1)
            if x.isFinite && x > 0 { return x }
        }
    }

    /// `count` evenly spaced points from a to b, both included.
    static func evenly(_ a: Double, _ b: Double, _ count: Int) -> [Double] {
        (0..<count).map { a + (b - a) * Double($0) / Double(count - 1) }
    }

    /// `count` consecutive doubles from `x` upwards.
    static func adjacent(from x: Double, _ count: Int) -> [Double] {
        var values = [x]
        while values.count < count { values.append(values[values.count - 1].nextUp) }
        return values
    }
}
