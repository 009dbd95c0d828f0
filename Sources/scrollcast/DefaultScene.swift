import ScrollEngine

/// The scene each new room starts with.
enum DefaultScene {
    /// A few days of calendar-like rows (replaced by the engine's demo scene when it lands).
    static func configuration() -> SceneConfiguration {
        let sections = (0..<20).map { day in
            TableSection(title: "Day \(day + 1)", rows: (0..<15).map { slot in
                let id = day * 15 + slot
                return TableRow(id: id, title: "Row \(id)", subtitle: "Item \(slot + 1)",
                                group: "Day \(day + 1)", detail: "\(8 + slot / 2):\(slot % 2 == 0 ? "00" : "30")", height: 64)
            })
        }
        return SceneConfiguration(sections: sections)
    }
}
