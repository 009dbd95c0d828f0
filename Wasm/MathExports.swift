// The engine's own exp, log and pow (Sources/ScrollEngine/Physics/EngineMath.swift), exported
// for the native/WebAssembly cross-check only (Tests/e2e/test_wasm_crosscheck.py compares them
// bit for bit with the native build over their whole range); the page never calls them. In a file
// of their own so that the boundary's other exports (Exports.swift) change without touching them.
import ScrollEngine

/// e^x, as the engine computes it.
@_expose(wasm, "scrollcast_math_exp") @_cdecl("scrollcast_math_exp")
public func scrollcastMathExp(_ x: Double) -> Double { EngineMath.exp(x) }

/// ln x, as the engine computes it.
@_expose(wasm, "scrollcast_math_log") @_cdecl("scrollcast_math_log")
public func scrollcastMathLog(_ x: Double) -> Double { EngineMath.log(x) }

/// x^y, as the engine computes it.
@_expose(wasm, "scrollcast_math_pow") @_cdecl("scrollcast_math_pow")
public func scrollcastMathPow(_ x: Double, _ y: Double) -> Double { EngineMath.pow(x, y) }
