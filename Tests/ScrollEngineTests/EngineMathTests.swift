import Testing
@testable import ScrollEngine

/// The engine's own exp, log and pow (Sources/ScrollEngine/Physics/EngineMath.swift) against the
/// C library over the engine's whole input range and far beyond: dense sweeps, seeded random
/// samples and special values. Every result must be within 1 ulp of the C library's double and,
/// where a 64-bit-significand reference exists (x86-64), within the documented bound of the exact
/// value.
@Suite struct EngineMathTests {
    typealias Ref = EngineMathReference

    /// Checks every argument and returns the largest error against the exact value (x86-64) or
    /// against libm (elsewhere), in ulps.
    @discardableResult
    func check(_ name: String, _ arguments: [(Double, Double)], engine: (Double, Double) -> Double,
               libm: (Double, Double) -> Double, exactError: (Double, Double, Double) -> Double?) -> Double {
        var worst = 0.0, worstAt = (0.0, 0.0), failures = 0
        for (x, y) in arguments {
            let got = engine(x, y)
            let apart = Ref.ulpsApart(got, libm(x, y))
            var error = apart
            if let exact = exactError(x, y, got) { error = exact }
            // Subnormal results carry fewer bits; the bound there is the 1 ulp of the grid.
            let bound = got.magnitude < Double.leastNormalMagnitude ? 1 : Ref.documentedBound
            if apart > 1 || (Ref.hasExtended && error > bound) {
                failures += 1
                if failures <= 5 { Issue.record("\(name)(\(x), \(y)) = \(got): \(error) ulp (\(apart) from libm)") }
            }
            if error > worst { (worst, worstAt) = (error, (x, y)) }
        }
        print("EngineMath \(name): \(arguments.count) arguments, max error \(worst) ulp at \(worstAt)")
        return worst
    }

    func checkExp(_ name: String, _ xs: [Double]) {
        check("exp " + name, xs.map { ($0, 0) }, engine: { x, _ in EngineMath.exp(x) },
              libm: { x, _ in Ref.libm(exp: x) }, exactError: { x, _, got in Ref.error(got, exp: x) })
    }

    func checkLog(_ name: String, _ xs: [Double]) {
        check("log " + name, xs.map { ($0, 0) }, engine: { x, _ in EngineMath.log(x) },
              libm: { x, _ in Ref.libm(log: x) }, exactError: { x, _, got in Ref.error(got, log: x) })
    }

    func checkPow(_ name: String, _ arguments: [(Double, Double)]) {
        check("pow " + name, arguments, engine: EngineMath.pow, libm: Ref.libm(pow:_:), exactError: { x, y, got in Ref.error(got, pow: x, y) })
    }

    // MARK: exp

    @Test func expOverItsWholeRange() {
        var a = Arguments()
        // The spring's one call is e^(−ω·1 ms) = e^−0.01; the range is everything that neither
        // overflows nor underflows, plus both thresholds' neighbourhoods.
        checkExp("sweep", Arguments.evenly(-746, 710, 60_001))
        checkExp("random", (0..<60_000).map { _ in a.uniform(-746, 710) })
        checkExp("reduced range", (0..<30_000).map { _ in a.uniform(-0.35, 0.35) })
        checkExp("tiny", (0..<5_000).map { _ in a.uniform(-1e-9, 1e-9) } + [1e-300, -1e-300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude])
        checkExp("engine", Arguments.adjacent(from: -0.01 - 500 * 0.01.ulp, 1_000))
        checkExp("thresholds", Arguments.adjacent(from: 709.782712893383, 2_000)
                 + Arguments.adjacent(from: -745.1332191019412, 500) + Arguments.adjacent(from: -708.3964185322642, 500))
        checkExp("subnormal results", (0..<10_000).map { _ in a.uniform(-745.2, -708.3) })
    }

    @Test func expSpecialValues() {
        #expect(EngineMath.exp(0) == 1 && EngineMath.exp(-0.0) == 1)
        #expect(EngineMath.exp(.infinity) == .infinity && EngineMath.exp(-.infinity) == 0)
        #expect(EngineMath.exp(.nan).isNaN)
        #expect(EngineMath.exp(709.78).isFinite && EngineMath.exp(709.79) == .infinity)
        #expect(EngineMath.exp(.greatestFiniteMagnitude) == .infinity && EngineMath.exp(-.greatestFiniteMagnitude) == 0)
        #expect(EngineMath.exp(-745.13) == Double.leastNonzeroMagnitude && EngineMath.exp(-745.14) == 0)
        #expect(EngineMath.exp(1) == 2.718281828459045 && EngineMath.exp(-1) == 0.36787944117144233)
    }

    // MARK: log

    @Test func logOverItsWholeRange() {
        var a = Arguments()
        // The engine takes ln of the deceleration rates (0.998, 0.99), of stopSpeed / speed for
        // any speed above 1 pt/s, and of (0, 1] when solving for an edge crossing.
        checkLog("every binade", (0..<60_000).map { _ in a.positiveBits() })
        checkLog("(0, 1]", Arguments.evenly(1e-6, 1, 60_001) + (0..<30_000).map { _ in a.uniform(0, 1) })
        checkLog("(1, 1e6]", (0..<20_000).map { _ in a.uniform(1, 1e6) })
        checkLog("around 1", Arguments.adjacent(from: 1 - 2_000 * 1.0.ulp / 2, 4_000) + (0..<20_000).map { _ in a.uniform(0.99, 1.01) })
        checkLog("around √2/2", Arguments.adjacent(from: 0.7071067811865475 - 500 * 0.5.ulp, 1_000))
        checkLog("subnormal", (0..<5_000).map { _ in Double(bitPattern: a.random.next() >> 12) } + [Double.leastNonzeroMagnitude])
        checkLog("engine", [0.998, 0.99] + (1...2_000).map { 1 / (Double($0) * 7.3) })
    }

    @Test func logSpecialValues() {
        #expect(EngineMath.log(1).bitPattern == 0)
        #expect(EngineMath.log(0) == -.infinity && EngineMath.log(-0.0) == -.infinity)
        #expect(EngineMath.log(.infinity) == .infinity)
        for x in [-1.0, -.infinity, -Double.leastNonzeroMagnitude, .nan] { #expect(EngineMath.log(x).isNaN) }
        #expect(EngineMath.log(.leastNonzeroMagnitude) == -744.4400719213812)
        #expect(EngineMath.log(.greatestFiniteMagnitude) == 709.782712893384)
        #expect(EngineMath.log(2) == 0.6931471805599453)
    }

    // MARK: pow

    @Test func powOverTheEngineRange() {
        var a = Arguments()
        // The decay's rate^ms: rate 0.998 or 0.99, ms from 0 to the far end of any motion and on
        // to where the result underflows.
        for rate in [0.998, 0.99] {
            checkPow("rate \(rate) sweep", Arguments.evenly(0, 400_000, 40_001).map { (rate, $0) })
            checkPow("rate \(rate) first 10 s", (0..<30_000).map { _ in (rate, a.uniform(0, 10_000)) })
            checkPow("rate \(rate) negative", (0..<5_000).map { _ in (rate, a.uniform(-70_000, 0)) })
        }
    }

    @Test func powOverItsWholeRange() {
        var a = Arguments()
        // x anywhere, y such that the result is representable (and some beyond).
        checkPow("random", (0..<60_000).map { _ in
            let x = a.positiveBits(), z = a.uniform(-760, 720)
            let lnX = Ref.libm(log: x)
            return (x, lnX == 0 ? z : z / lnX)
        })
        checkPow("near 1", (0..<10_000).map { _ in (1 + a.uniform(-1e-12, 1e-12), a.uniform(-1e14, 1e14)) })
        checkPow("negative base", (0..<10_000).map { _ in (a.uniform(-10, 10), Double(Int(a.uniform(-300, 300)))) })
        checkPow("small integers", (0..<10_000).map { _ in (a.uniform(0, 4), a.uniform(-8, 8).rounded()) })
    }

    /// C99 Annex F's special cases, every pair of special arguments: the same bits as the C
    /// library when it returns an exact special value (NaN, ±0, ±∞, ±1), else within 1 ulp.
    @Test func powSpecialValues() {
        let specials: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 2.5, -2.5, 0x1p53, -0x1p53, 0x1p53 + 2,
                                  .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                  .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, 1e300]
        for x in specials {
            for y in specials {
                let got = EngineMath.pow(x, y), want = Ref.libm(pow: x, y)
                if want.isNaN {
                    #expect(got.isNaN, "pow(\(x), \(y))")
                } else if want == 0 || want.isInfinite || want.magnitude == 1 {
                    #expect(got.bitPattern == want.bitPattern, "pow(\(x), \(y)) = \(got), C library \(want)")
                } else {
                    #expect(Ref.ulpsApart(got, want) <= 1, "pow(\(x), \(y)) = \(got), C library \(want)")
                }
            }
        }
        #expect(EngineMath.pow(.nan, 0) == 1 && EngineMath.pow(1, .nan) == 1)
        #expect(EngineMath.pow(-8, 1.0 / 3).isNaN && EngineMath.pow(-2, 3) == -8)
    }

    // MARK: shape

    /// Where the function is monotonic, so are the results over dense sweeps and runs of
    /// adjacent doubles.
    @Test func monotonicWhereTheMathIs() {
        var a = Arguments()
        func nonDecreasing(_ name: String, _ xs: [Double], _ f: (Double) -> Double) {
            let ys = xs.sorted().map(f)
            let drops = zip(ys, ys.dropFirst()).filter { $0 > $1 }.count
            #expect(drops == 0, "\(name): \(drops) decreasing steps over \(xs.count) arguments")
        }
        let points = [-700.0, -10, -1, -0.3466, -0.01, 0, 0.01, 0.3466, 1, 10, 700]
        nonDecreasing("exp", Arguments.evenly(-746, 710, 100_001) + points.flatMap { Arguments.adjacent(from: $0, 2_000) },
                      EngineMath.exp)
        nonDecreasing("log", (0..<50_000).map { _ in a.positiveBits() } + [0.5, 0.7071, 0.998, 1, 1.4142, 2]
                      .flatMap { Arguments.adjacent(from: $0, 2_000) }, EngineMath.log)
        for rate in [0.998, 0.99] {
            nonDecreasing("−rate^ms, rate \(rate)", Arguments.evenly(0, 400_000, 100_001)
                          + Arguments.adjacent(from: 100, 2_000)) { -EngineMath.pow(rate, $0) }
        }
        nonDecreasing("x^2.5", (0..<50_000).map { _ in a.uniform(0, 1e6) }) { EngineMath.pow($0, 2.5) }
    }

    /// The point of the engine's own math: the same bits everywhere. The hash of every result
    /// over a fixed sweep, recorded here on x86-64 Linux; the WebAssembly build gives the same
    /// (Tests/e2e/test_wasm_crosscheck.py), and any other platform must too.
    @Test func theSameBitsOnEveryPlatform() {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ x: Double) { hash = (hash ^ x.bitPattern) &* 0x0000_0100_0000_01B3 }
        var a = Arguments()
        for _ in 0..<20_000 {
            mix(EngineMath.exp(a.uniform(-746, 710)))
            mix(EngineMath.log(a.positiveBits()))
            mix(EngineMath.pow(0.998, a.uniform(0, 400_000)))
            mix(EngineMath.pow(a.positiveBits(), a.uniform(-4, 4)))
        }
        #expect(hash == 0x06CF_677C_D3F3_6D63, "now \(String(hash, radix: 16))")
    }
}
