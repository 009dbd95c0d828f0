import Testing
@testable import ScrollEngine

/// Recorded trajectories (content offset every 50 ms) for four scripted scenarios, checked with a
/// tolerance so an accidental change to the physics shows up. The first points of each table are
/// also worked out by hand from the formulas below, so the tables are not merely self-recorded.
@Suite struct GoldenTrajectoryTests {
    static let tolerance = 1e-3

    static let recorded: [GoldenScenario: [Double]] = [
        .fling: [76.0000, 171.1579, 257.2517, 335.1448, 405.6183, 469.3790, 527.0663, 579.2587, 626.4796, 669.2026,
                 707.8560, 742.8276, 774.4681, 803.0947, 828.9945, 852.4273, 873.6280, 892.8093, 910.1635, 925.8647],
        .edgeBounce: [204.0000, 61.2632, -65.8901, -126.2301, -135.6973, -124.9836, -108.5046, -92.4558, -79.0499, -68.6918,
                      -61.0586, -55.6095, -51.8075, -49.2001, -47.4358, -46.2548, -45.4713, -44.9553, -44.6175, -44.3977],
        .wheelNotchBurst: [-44.0000, -38.5047, -26.0188, -10.9677, 5.3704, 49.4706, 111.1328, 175.7220, 228.6032, 255.1414,
                           256.0000, 256.0000, 256.0000, 256.0000, 256.0000, 256.0000, 256.0000, 256.0000, 256.0000, 256.0000],
        .trackpadStream: [-60.4481, -112.8265, -123.2397, -123.5782, -123.5782, -122.4338, -111.7303, -97.3069, -83.7479, -72.6061,
                          -64.0786, -57.8329, -53.3937, -50.3063, -48.1942, -46.7678, -45.8146, -45.1830, -44.7675, -44.4958],
    ]

    @Test(arguments: GoldenScenario.allCases)
    func matchesTheRecordedTable(scenario: GoldenScenario) throws {
        let actual = try scenario.trajectory()
        let expected = try #require(Self.recorded[scenario])
        #expect(actual.count == expected.count)
        for (i, (a, e)) in zip(actual, expected).enumerated() {
            #expect(abs(a - e) <= Self.tolerance, "\(scenario) sample \(i): \(a) vs \(e)")
        }
    }

    @Test func flingPointsByHand() throws {
        // x(50) = 76 + 2000·(0.998^50 − 1)/(1000·ln 0.998) = 171.15790 (computed independently).
        let table = try #require(Self.recorded[.fling])
        #expect(abs(table[1] - 171.15790) < 1e-4)
        #expect(table[0] == 76)
        // It heads for 76 + 2000/2.00200 ≈ 1074.99 without reaching it in the first second.
        #expect(table.allSatisfy { $0 < 1074.99 })
    }

    @Test func edgeBouncePointsByHand() throws {
        let table = try #require(Self.recorded[.edgeBounce])
        // Released at 204 with −3000 pt/s: x(50) = 204 − 3000·(0.998^50 − 1)/(1000·ln 0.998) = 61.26315.
        #expect(abs(table[1] - 61.26315) < 1e-4)
        // The decay would rest at 204 − 1498.5 ≈ −1294.5, far past the top: it crosses −44 and springs
        // back: after the peak it rises monotonically towards −44 and never passes it.
        let peak = try #require(table.firstIndex(of: table.min()!))
        #expect(table[peak] < -44)
        #expect(zip(table[peak...], table[(peak + 1)...]).allSatisfy { $0 <= $1 && $1 <= -44 })
    }

    @Test func wheelBurstPointsByHand() throws {
        let table = try #require(Self.recorded[.wheelNotchBurst])
        // Five notches (+100, +100, +100, −100, +100) accumulate one target: −44 + 300 = 256.
        #expect(table[0] == -44)
        #expect(table.last == 256)
    }

    @Test func trackpadPointsByHand() throws {
        let table = try #require(Self.recorded[.trackpadStream])
        // First delta −30.5 from the top: −44 − (1 − 1/(30.5·0.55/844 + 1))·844 = −60.44808 (rubber band).
        #expect(abs(table[0] - (-60.44808)) < 1e-4)
        // Last event at 112 ms; the stream ends 120 ms later (232 ms) and only then springs back.
        #expect(table[3] == table[4])  // 150 and 200 ms: held
        #expect(table[5] > table[4])   // 250 ms: springing back
    }
}
