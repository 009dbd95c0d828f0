// The engine needs `exp`, `log` and `pow` (decay, spring and crossing-time formulas). The Swift
// standard library has no transcendental functions and Foundation is not allowed in ScrollEngine,
// so each physics file imports the platform C math library directly (Glibc on Linux, Darwin on
// Apple platforms). That adds no dependency beyond the C library every Swift program links.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Natural logarithm, through the C math library (see the note at the top of this file).
@inline(__always) func naturalLog(_ x: Double) -> Double { log(x) }
/// e^x, through the C math library.
@inline(__always) func naturalExp(_ x: Double) -> Double { exp(x) }
/// x^y, through the C math library.
@inline(__always) func power(_ x: Double, _ y: Double) -> Double { pow(x, y) }
