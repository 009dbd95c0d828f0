import Foundation

/// The `room.rowOrder` column: JSON text of `[[Int]]` (row ids per section), e.g. `[[3,1,2],[4]]`.
/// JSON so that an operator can read and fix it in the `sqlite3` shell.
enum RowOrderCoding {
    /// The JSON text of `order`.
    static func encode(_ order: [[Int]]) -> String {
        "[" + order.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
    }

    /// The order `text` holds, or nil if it is not a JSON array of arrays of integers.
    static func decode(_ text: String) -> [[Int]]? {
        try? JSONDecoder().decode([[Int]].self, from: Data(text.utf8))
    }
}
