@testable import ScrollEngine

/// A plain table for scene tests: 390 × 844 viewport, 44 pt top inset, 180 pt header view,
/// one section (28 pt header) of `rows` rows 44 pt tall: content 4608 pt, offsets −44…3764.
func plainConfiguration(rows: Int = 100, sections: Int = 1) -> SceneConfiguration {
    var id = 0
    let tableSections = (0..<sections).map { s in
        TableSection(title: "S\(s)", rows: (0..<rows).map { r in
            defer { id += 1 }
            return TableRow(id: id, title: "Row \(s).\(r)", group: "Group \(s)", detail: "\(r)", height: 44)
        })
    }
    return SceneConfiguration(sections: tableSections)
}

/// Applies inputs in order with increasing ids; returns the changes of the last one.
struct Script {
    var scene: ScrollScene
    var nextID: UInt64 = 1
    init(_ configuration: SceneConfiguration = plainConfiguration()) { scene = ScrollScene(configuration: configuration) }

    @discardableResult
    mutating func send(_ time: Double, _ kind: InputKind) throws -> [SceneChange] {
        defer { nextID += 1 }
        return try scene.apply(InputEvent(id: nextID, time: time, kind: kind))
    }

    func offset(_ time: Double) -> Double { scene.frame(at: time).contentOffset }
}

func point(_ y: Double, x: Double = 200) -> Point { Point(x: x, y: y) }

func approx(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }
