import Foundation
import ScrollEngine
import Testing
@testable import ScrollWire

@Suite("Number precision of frames")
struct WirePrecisionTests {
    private func written(_ value: Double, _ precision: WirePrecision) -> String {
        var w = JSONWriter()
        w.number(value, precision)
        return w.bytes.text
    }

    /// What `number(_:)` (the shortest round-trip spelling) writes for a double.
    private func shortest(_ value: Double) -> String {
        var w = JSONWriter()
        w.number(value)
        return w.bytes.text
    }

    @Test("points: two decimals, halves away from zero as computed in doubles, -0 as 0, integers as integers")
    func pointCases() {
        let cases: [(Double, String)] = [
            (561.6189861263418, "561.62"), (-48.74225793529649, "-48.74"), (812.5, "812.5"), (64, "64"),
            (0.005, "0.01"), (-0.005, "-0.01"), (0.015, "0.02"), (0.025, "0.03"), (-48.745, "-48.75"),
            // 1.005 is stored as 1.00499999999999989…; ×100 gives 100.49999999999999, so it rounds down.
            (1.005, "1"), (2.675, "2.68"),
            (0.004, "0"), (-0.004, "0"), (-0.0, "0"), (1e-7, "0"), (0.05, "0.05"), (-0.05, "-0.05"), (3.999, "4"),
            (190512, "190512"), (64_000_000.125, "64000000.13"), (-2950.7422579352965, "-2950.74"),
        ]
        for (value, expected) in cases {
            #expect(written(value, .points) == expected, "\(value)")
            #expect(Double(expected) == WirePrecision.points.rounded(value), "\(value)")
        }
    }

    @Test("fractions (alpha, lift): three decimals")
    func fractionCases() {
        let cases: [(Double, String)] = [
            (0.3325482899881899, "0.333"), (1, "1"), (0, "0"), (0.0005, "0.001"), (0.0004999, "0"),
            (0.9995, "1"), (0.75, "0.75"), (0.05, "0.05"), (0.001, "0.001"), (-0.0015, "-0.002"),
        ]
        for (value, expected) in cases {
            #expect(written(value, .fraction) == expected, "\(value)")
            #expect(Double(expected) == WirePrecision.fraction.rounded(value), "\(value)")
        }
    }

    @Test("milliseconds: two decimals, wall-clock times included")
    func millisecondCases() {
        let cases: [(Double, String)] = [
            (41.02582899853587, "41.03"), (1966.66666666667, "1966.67"), (53211, "53211"),
            (1763800000123.4, "1763800000123.4"), (1763800000123.455, "1763800000123.46"),
            (1763800005773.4568, "1763800005773.46"), (0.0015, "0"),
        ]
        for (value, expected) in cases {
            #expect(written(value, .milliseconds) == expected, "\(value)")
        }
    }

    @Test("rounded values come back as themselves: +0 for -0, unchanged when huge or non-finite")
    func roundedValues() {
        #expect(WirePrecision.points.rounded(-0.0).sign == .plus)
        #expect(WirePrecision.points.rounded(-0.004).sign == .plus)
        // At 1e13 pt the 15-digit guarantee ends, so the value is written in full.
        for huge in [1e13, -1e13, 1e13 + 0.125, 1e300] {
            #expect(WirePrecision.points.rounded(huge) == huge)
            #expect(written(huge, .points) == shortest(huge))
        }
        #expect(written(9_999_999_999_999.994, .points) == "9999999999999.99")
        #expect(WirePrecision.points.rounded(.infinity) == .infinity)
        #expect(WirePrecision.points.rounded(.nan).isNaN)
        #expect(written(.nan, .points) == "0")
        #expect(written(-.infinity, .fraction) == "-1.7976931348623157e+308")
    }

    @Test("many random values: the digits are the shortest spelling of the rounded double, and rounding is idempotent")
    func randomValues() {
        var rng = SeededRandom(seed: 0x0DD_C0FFEE)
        for precision in [WirePrecision.points, .fraction, .milliseconds] {
            let scale = precision.decimals == 2 ? 100.0 : 1000.0
            // Up to just under where rounding stops (|x · scale| < 1e15).
            let reach = 9.9e14 / scale
            for i in 0..<20_000 {
                let value: Double
                switch i % 5 {
                case 0: value = Double.random(in: -1e6...1e6, using: &rng)
                case 1: value = Double.random(in: -2...2, using: &rng)
                // Exactly on and next to the halfway points between two outputs.
                case 2: value = (Double(Int.random(in: -10_000_000...10_000_000, using: &rng)) + 0.5) / scale
                case 3: value = Double.random(in: -reach...reach, using: &rng)
                default: value = precision == .fraction ? Double.random(in: 0...1, using: &rng)
                                                        : Double.random(in: 1.7e12...1.8e12, using: &rng)  // sentAt-like
                }
                let text = written(value, precision)
                let rounded = precision.rounded(value)
                #expect(text == shortest(rounded), "\(value)")
                #expect(Double(text)?.bitPattern == rounded.bitPattern, "\(value) → \(text)")
                #expect(precision.rounded(rounded).bitPattern == rounded.bitPattern, "\(value)")
                #expect(written(rounded, precision) == text, "\(value)")
                #expect((rounded - value).magnitude <= 0.5 / scale + 2 * value.ulp, "\(value) → \(text)")
                #expect(!text.contains("e") && text != "-0", "\(text)")
                if let fraction = text.split(separator: ".").dropFirst().first {
                    #expect(fraction.count <= precision.decimals && !fraction.hasSuffix("0"), "\(text)")
                }
            }
        }
    }

    @Test("a random frame decodes to exactly its rounded form, and re-encodes to the same bytes")
    func randomFrames() throws {
        var rng = SeededRandom(seed: 0xF4A3E)
        func coordinate() -> Double { Double.random(in: -5000...5000, using: &rng) }
        func unit() -> Double { Double.random(in: 0...1, using: &rng) }
        func row(_ id: Int) -> VisibleRow {
            VisibleRow(indexPath: IndexPath(section: id / 5, row: id % 5), id: id, y: coordinate(), height: coordinate(),
                       title: "r\(id)", subtitle: "", detail: "")
        }
        func rect() -> Rect { Rect(x: coordinate(), y: coordinate(), width: coordinate(), height: coordinate()) }
        for index in 0..<300 {
            let frame = EffectFrame(
                sequence: UInt64(index), time: Double.random(in: 0...1e9, using: &rng), lastInputID: nil, phase: .bouncing,
                isAnimating: true, viewport: Size(width: Double.random(in: 100...4000, using: &rng), height: coordinate()),
                insets: EdgeInsets(top: 44.123456), contentOffset: coordinate(),
                contentHeight: Double.random(in: 0...1e8, using: &rng), rows: (0..<4).map(row),
                sectionHeaders: [VisibleSectionHeader(section: 0, y: coordinate(), height: coordinate(), title: "h")],
                backgroundOffset: coordinate(), parallaxLayers: [LayerPosition(index: 0, y: coordinate()), LayerPosition(index: 1, y: coordinate())],
                indicator: IndicatorState(rect: rect(), alpha: unit()),
                infoPanel: InfoPanelState(rect: rect(), alpha: unit(), title: "t", detail: "d"),
                liftedRow: LiftedRowState(row: row(99), lift: unit(), isSettling: index % 2 == 0),
                placeholder: PlaceholderState(indexPath: IndexPath(section: 1, row: 2), y: coordinate(), height: coordinate()))
            let sentAt = Double.random(in: 1.7e12...1.8e12, using: &rng)
            let bytes = ServerMessageEncoder.frame(frame, input: nil, sentAt: sentAt)
            guard case .frame(let decoded) = try ServerMessageDecoder.decode(bytes) else { Issue.record("not a frame"); return }
            let expected = frame.roundedForWire()
            #expect(decoded.effectFrame(insets: frame.insets) == expected)
            #expect(expected != frame)
            #expect(decoded.sentAt == WirePrecision.milliseconds.rounded(sentAt))
            #expect(ServerMessageEncoder.encode(.frame(decoded)) == bytes)
            // Encoding the rounded frame changes nothing: rounding twice is rounding once.
            #expect(ServerMessageEncoder.frame(expected, input: nil, sentAt: decoded.sentAt) == bytes)
        }
    }

    /// Every number token outside strings in compact JSON, with the key it belongs to.
    private func numberTokens(_ json: String) -> [(key: String, token: String)] {
        var tokens: [(String, String)] = []
        var lastString = "", current = "", key = ""
        var inString = false, escaped = false
        var token = ""
        for c in json {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false; lastString = current } else { current.append(c) }
                continue
            }
            // A number starts with a digit or "-" (so the "e" of true/false is not one).
            if c.isNumber || c == "-" || (!token.isEmpty && (c == "." || c == "e" || c == "+")) {
                token.append(c)
                continue
            }
            if !token.isEmpty { tokens.append((key, token)); token = "" }
            if c == "\"" { inString = true; current = "" } else if c == ":" { key = lastString }
        }
        return tokens
    }

    @Test("the demo scene mid-fling with the panel up: every number is short, and the frame decodes to its rounded form")
    func demoFling() throws {
        var scene = ScrollScene(configuration: DemoScene.configuration())
        var id: UInt64 = 0
        func send(_ time: Double, _ kind: InputKind) throws {
            id += 1
            _ = try scene.apply(InputEvent(id: id, time: time, kind: kind))
        }
        try send(0, .pointerDown(Point(x: 200, y: 700)))
        for step in 1...12 { try send(Double(step) * 8, .pointerMoved(Point(x: 200, y: 700 - Double(step) * 40))) }
        try send(100, .pointerUp(Point(x: 200, y: 220)))
        var checked = 0
        var withPanel = 0
        for tick in stride(from: 1, through: 400, by: 7) {
            let frame = scene.frame(at: 100 + Double(tick) * 1000 / 60)
            withPanel += frame.infoPanel == nil ? 0 : 1
            let bytes = ServerMessageEncoder.frame(frame, input: AppliedInput(viewer: "v1", id: id), sentAt: 1763800005773.4568)
            guard case .frame(let decoded) = try ServerMessageDecoder.decode(bytes) else { Issue.record("not a frame"); return }
            #expect(decoded.effectFrame(insets: frame.insets) == frame.roundedForWire())
            for (key, token) in numberTokens(bytes.text) {
                let decimals = token.split(separator: ".").dropFirst().first?.count ?? 0
                let allowed = key == "alpha" || key == "lift" ? 3 : 2
                #expect(decimals <= allowed && !token.contains("e"), "\(key): \(token)")
            }
            checked += 1
        }
        #expect(checked > 50 && withPanel > 10)
    }
}
