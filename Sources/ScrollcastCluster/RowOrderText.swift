/// A row order as Redis keeps it: sections split by ";", row ids by ",", e.g. "0,1,2;3,4".
enum RowOrderText {
    static func encode(_ order: [[Int]]) -> String {
        order.map { $0.map(String.init).joined(separator: ",") }.joined(separator: ";")
    }

    /// The order, or nil when the text is not one (empty text: no order stored).
    static func decode(_ text: String) -> [[Int]]? {
        guard !text.isEmpty else { return nil }
        var order: [[Int]] = []
        for section in text.split(separator: ";", omittingEmptySubsequences: false) {
            var rows: [Int] = []
            for id in section.split(separator: ",") {
                guard let value = Int(id) else { return nil }
                rows.append(value)
            }
            order.append(rows)
        }
        return order
    }
}
