// The engine needs `exp`, `log` and `pow` (decay, spring and crossing-time formulas). The Swift
// standard library has no transcendental functions and Foundation is not allowed in ScrollEngine,
// so the physics reaches the platform C math library directly: Glibc on Linux, Darwin on Apple
// platforms, and for WebAssembly (Embedded Swift, where no C module can be imported) the three
// functions declared by their C names and linked from wasi-libc's libm (docs/wasm.md). That adds
// no dependency beyond the C library every Swift program links.
#if hasFeature(Embedded)
@_extern(c, "exp") func exp(_ x: Double) -> Double
@_extern(c, "log") func log(_ x: Double) -> Double
@_extern(c, "pow") func pow(_ x: Double, _ y: Double) -> Double
#elseif canImport(Glibc)
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
