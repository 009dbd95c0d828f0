/// A parsed JSON value. Internal: the decoders turn it into typed messages.
package enum JSONValue: Sendable, Equatable {
    case object(JSONObject)
    case array([JSONValue])
    case string(String)
    /// Always finite: the parser refuses numbers that overflow a double.
    case number(Double)
    case bool(Bool)
    case null

    /// Name of the JSON type, for error messages ("got a string").
    package var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}
