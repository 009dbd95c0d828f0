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
            TableRow(id: index, title: joinedText("Option ", decimalText(index)), group: joinedText("Option ", decimalText(index)),
                     detail: index == checkedRow ? checkmark : "", height: 44)
        }
        return SceneConfiguration(
            headerHeight: 0,
            background: BackgroundImage(image: "images/background.svg", height: 1600),
            sections: [TableSection(title: "Demo Table", headerHeight: 0, rows: rows)])
    }
}
