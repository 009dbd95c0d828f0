import Testing
@testable import ScrollEngine

@Test func dragMovesContentOneToOne() throws {
    var scene = ScrollScene(configuration: SceneConfiguration(sections: [TableSection(title: "A", rows: (0..<50).map { TableRow(id: $0, title: "\($0)") })]))
    _ = try scene.apply(InputEvent(id: 1, time: 0, kind: .pointerDown(Point(x: 10, y: 400))))
    _ = try scene.apply(InputEvent(id: 2, time: 10, kind: .pointerMoved(Point(x: 10, y: 300))))
    #expect(scene.frame(at: 10).contentOffset == -44 + 100)
}
