/// A parsed JSON object: its members by name, in the order they came.
///
/// Names are compared as `String`s (`==`, as a `[String: JSONValue]` would), so the parser's
/// duplicate check and every lookup mean what they meant with a dictionary. A client's input
/// message has six fields; for so few, a scan of the names is cheaper than a hash table, which
/// hashed every name twice (once stored, once looked up) and allocated its storage for every
/// message. Past `indexedAbove` members an index by name is built as they are added, so an
/// object of thousands of members (a hostile 16 KB message) still costs O(n), not O(n²).
package struct JSONObject: Sendable, Equatable {
    private var names: [String] = []
    private var values: [JSONValue] = []
    private var index: [String: Int]?

    /// Members scanned linearly up to this many.
    static let indexedAbove = 16

    package init() {}

    /// Number of members.
    package var count: Int { names.count }

    /// The value of member `name`, if there is one.
    package subscript(name: String) -> JSONValue? {
        if let index { return index[name].map { values[$0] } }
        for i in names.indices where names[i] == name { return values[i] }
        return nil
    }

    /// Adds member `name`; false (and nothing added) when the object already has one so named.
    package mutating func insert(_ value: JSONValue, named name: String) -> Bool {
        if index == nil, names.count >= Self.indexedAbove {
            var built = [String: Int](minimumCapacity: names.count * 2)
            for i in names.indices { built[names[i]] = i }
            index = built
        }
        if index != nil {
            guard index?[name] == nil else { return false }
            index?[name] = names.count
        } else if names.contains(where: { $0 == name }) {
            return false
        }
        if names.isEmpty {
            names.reserveCapacity(8)
            values.reserveCapacity(8)
        }
        names.append(name)
        values.append(value)
        return true
    }

    /// Equal when both have the same names with equal values, in any order (as dictionaries are).
    package static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        for i in a.names.indices where b[a.names[i]] != a.values[i] { return false }
        return true
    }
}
