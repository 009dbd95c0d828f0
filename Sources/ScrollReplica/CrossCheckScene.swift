import ScrollEngine

/// The random scenes of the cross-check (docs/wasm.md, "Determinism"): what file and uploaded
/// scenes may be (docs/scenes.md), drawn from a script's seed. Viewports of any size within the
/// scene files' range, no table header or a tall one, 0 to 16 layers with any factors, a
/// background or none, 1 to 20,000 rows (the scene files' limit) in up to 60 sections, some
/// empty, headers of 0 pt and odd heights, rows from 0.01 pt to 700 pt, texts empty, long or
/// not ASCII.
extension ScriptGenerator {
    /// The scene files' row limit (`SceneFileLimits.maxRows`, which the engine does not import).
    static let maxRows = 20_000

    private static let short = ["", "a", "Ä", "✓", "7"]
    private static let words = ["", "Harbour", "Old Town in the fog", "Ä", "日本語のテキスト", "✓", "a b",
                                "Lighthouse at dawn, seen from the pier below the old customs house"]

    mutating func size(_ low: Double, _ high: Double) -> Double {
        switch int(0, 3) {
        case 0: return Double(int(Int(low.rounded(.up)), Int(high)))   // whole points, as most files
        case 1: return (double(low, high) * 4).rounded() / 4               // quarters
        default: return double(low, high)                                   // any double
        }
    }

    /// Mostly short (a scene of 20,000 rows crosses to the page as hex), now and then long or empty.
    mutating func text() -> String {
        if chance(0.01) { return String(repeating: "é", count: 256) }
        return chance(0.8) ? Self.short[int(0, Self.short.count - 1)] : Self.words[int(0, Self.words.count - 1)]
    }

    /// A row count from 1 to the limit, small ones far more often (the scripts stay quick).
    mutating func rowCount() -> Int {
        switch int(0, 39) {
        case 0: return 1
        case 1: return Self.maxRows
        case 2...9: return int(2, 9)
        case 10...29: return int(10, 120)
        case 30...35: return int(121, 1500)
        default: return int(1501, Self.maxRows)
        }
    }

    /// A scene of `given` rows, or of `rowCount()`.
    mutating func scene(rows given: Int? = nil) -> SceneConfiguration {
        let viewport = Size(width: size(100, 1400), height: size(100, 1400))
        let top = chance(0.3) ? 0 : size(0, viewport.height / 3)
        let insets = EdgeInsets(top: top, left: chance(0.8) ? 0 : size(0, 40),
                                bottom: chance(0.7) ? 0 : size(0, viewport.height / 3), right: chance(0.8) ? 0 : size(0, 40))
        let headerHeight = chance(0.3) ? 0 : size(0, 600)
        let layerCount = chance(0.2) ? 16 : int(0, 4)
        let layers = (0..<layerCount).map { _ in
            ParallaxLayer(image: "layer.png", size: Size(width: size(0.5, 1200), height: size(0.5, 900)),
                          restingY: chance(0.3) ? -150 : double(-600, 300),
                          pullFactor: chance(0.2) ? 0 : double(0, 2), scrollFactor: chance(0.2) ? 1 : double(0, 2))
        }
        let background = chance(0.4) ? nil : BackgroundImage(image: "background.png", height: size(1, 40_000))
        let rows = given ?? rowCount()
        let sectionCount = int(1, min(60, rows + 2))
        var sections: [TableSection] = []
        var id = 0
        var height = 44.0
        for s in 0..<sectionCount {
            let count = s == sectionCount - 1 ? rows - id : int(0, (rows - id) / max(1, sectionCount - s - 1))
            let group = text()
            let tableRows = (0..<count).map { _ -> TableRow in
                if chance(0.3) { height = chance(0.1) ? 0.01 : size(1, 700) }
                let row = TableRow(id: id, title: text(), subtitle: chance(0.5) ? "" : text(),
                                   group: chance(0.7) ? group : text(), detail: chance(0.6) ? "" : text(), height: height)
                id += 1
                return row
            }
            sections.append(TableSection(title: text(), headerHeight: chance(0.3) ? 0 : size(0, 80), rows: tableRows))
        }
        return SceneConfiguration(viewport: viewport, insets: insets, headerHeight: headerHeight, parallaxLayers: layers,
                                  background: background, sections: sections, decelerationRate: chance(0.3) ? .fast : .normal)
    }
}
