import ScrollEngine

/// The arguments on which the native and WebAssembly builds of the engine's own exp, log and pow
/// (EngineMath) are compared bit for bit (`scrollcast-replica-check --math`, checked in the page
/// by Tests/e2e/test_wasm_crosscheck.py): each function over its whole range, densely where the
/// engine calls it, in seeded random samples, in runs of adjacent doubles where the computation
/// switches path, and at every special value.
enum MathSweep {
    /// One JSON line per function: `{"function":…,"x":[…],("y":[…],)"want":[…]}`, NaN and ±∞
    /// as the strings "NaN", "Infinity", "-Infinity" (JavaScript's `Number` reads them back).
    static func lines() -> [String] {
        var random = SeededRandom(seed: 0xE4_6A7E)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() >> 11) * 0x1p-53 }
        func anyPositive() -> Double {
            while true {
                let x = Double(bitPattern: random.next() >> 1)
                if x.isFinite && x > 0 { return x }
            }
        }
        let specials: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 2.5, -2.5, 0x1p53, -0x1p53, .infinity,
                                  -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                  .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, 1e300]

        var exps = evenly(-746, 710, 20_001) + (0..<20_000).map { _ in uniform(-746, 710) }
        exps += (0..<5_000).map { _ in uniform(-0.35, 0.35) } + (0..<5_000).map { _ in uniform(-745.2, -708.3) }
        for x in [-0.01, 0, 0.3465735902799726, 709.782712893383, -708.3964185322642, -745.1332191019412] {
            exps += adjacent(x, 500)
        }
        var logs = (0..<20_000).map { _ in anyPositive() } + evenly(0, 2, 10_001) + [0.998, 0.99]
        logs += (0..<2_000).map { _ in Double(bitPattern: random.next() >> 12) }  // subnormals
        for x in [1 - 250 * 0x1p-53, 0.7071067811865475, 1.4142135623730951] { logs += adjacent(x, 500) }
        var pows: [(Double, Double)] = []
        for rate in [0.998, 0.99] { pows += evenly(0, 400_000, 10_001).map { (rate, $0) } }
        pows += (0..<20_000).map { _ in (anyPositive(), uniform(-4, 4)) }
        pows += (0..<10_000).map { _ in (uniform(-10, 10), uniform(-300, 300).rounded()) }
        pows += specials.flatMap { x in specials.map { (x, $0) } }

        return [
            line("exp", exps + specials, nil) { x, _ in EngineMath.exp(x) },
            line("log", logs + specials, nil) { x, _ in EngineMath.log(x) },
            line("pow", pows.map { $0.0 }, pows.map { $0.1 }, EngineMath.pow),
        ]
    }

    static func evenly(_ a: Double, _ b: Double, _ count: Int) -> [Double] {
        (0..<count).map { a + (b - a) * Double($0) / Double(count - 1) }
    }

    /// `count` consecutive doubles centred on x.
    static func adjacent(_ x: Double, _ count: Int) -> [Double] {
        var value = x
        for _ in 0..<count / 2 { value = value.nextDown }
        return (0..<count).map { _ in defer { value = value.nextUp }; return value }
    }

    static func line(_ name: String, _ xs: [Double], _ ys: [Double]?, _ f: (Double, Double) -> Double) -> String {
        let results = xs.indices.map { f(xs[$0], ys?[$0] ?? 0) }
        var out = "{\"function\":\"\(name)\",\"x\":[" + xs.map(number).joined(separator: ",") + "]"
        if let ys { out += ",\"y\":[" + ys.map(number).joined(separator: ",") + "]" }
        return out + ",\"want\":[" + results.map(number).joined(separator: ",") + "]}"
    }

    static func number(_ x: Double) -> String {
        if x.isNaN { return "\"NaN\"" }
        if x.isInfinite { return x > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        return "\(x)"
    }
}
