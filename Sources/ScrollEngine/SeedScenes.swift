/// The scenes a room can be created with, by wire name (`join`'s `scene` field).
///
/// `demo` is the Path-like timeline (`DemoScene`); `seed-table` reproduces the DemoTable of
/// scroll-to-row-near-edges.txt so its "scroll to row 19, middle" can be tried literally.
/// (No larger preset: a snapshot listing 10,000 row ids is over 32 KiB, and the WebSocket layer
/// cannot yet send messages that large safely with permessage-deflate.)
public enum ScenePreset: String, Sendable, Hashable, CaseIterable {
    /// The default: `DemoScene.configuration()`.
    case demo
    /// The seed's 20-row DemoTable (`SeedTableScene.configuration()`).
    case seedTable = "seed-table"

    /// The preset used when a join names none.
    public static let `default` = ScenePreset.demo

    /// Every wire name, in declaration order, comma-separated (for error messages and docs).
    public static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The scene this preset describes. The same preset always gives the same scene.
    public func configuration() -> SceneConfiguration {
        switch self {
        case .demo: return DemoScene.configuration()
        case .seedTable: return SeedTableScene.configuration()
        }
    }
}

/// scroll-to-row-near-edges.txt's DemoTable: one section of 20 rows titled "Option 0" … "Option 19",
/// 44 pt each (UITableView's default row height), "Option 19" checked (the post pushes
/// `initWithValue:19`), under the default 44 pt navigation bar inset.
///
/// The seed's table has no header, so there is no table header and no parallax layer; the demo's
/// background image stays (shorter, to suit an 880 pt table) so the background scroll indicator
/// still shows. Each row's info-panel group is its own title, since the table has no days.
public enum SeedTableScene {
    /// Rows in the seed's table (`numberOfRowsInSection` returns 20).
    public static let rowCount = 20
    /// The row the seed checks and scrolls to (`initWithValue:19`).
    public static let checkedRow = 19
    /// Detail text of the checked row: the seed's `UITableViewCellAccessoryCheckmark`.
    public static let checkmark = "✓"

    /// The seed table's configuration.
    public static func configuration() -> SceneConfiguration {
        let rows = (0..<rowCount).map { index in
            TableRow(id: index, title: "Option \(index)", group: "Option \(index)",
                     detail: index == checkedRow ? checkmark : "", height: 44)
        }
        return SceneConfiguration(
            headerHeight: 0,
            background: BackgroundImage(image: "images/background.svg", height: 1600),
            sections: [TableSection(title: "Demo Table", headerHeight: 0, rows: rows)])
    }
}
