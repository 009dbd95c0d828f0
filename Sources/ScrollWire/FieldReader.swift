/// Reads typed fields out of a parsed JSON object, throwing errors that name the field
/// ("field 'x' must be a finite number"). Nested readers prefix their path ("rows[2].y").
package struct FieldReader {
    package let fields: JSONObject
    package let path: String

    package init(_ fields: JSONObject, path: String = "") {
        self.fields = fields
        self.path = path
    }

    /// Reads a whole message: it must be a JSON object.
    package init(message value: JSONValue) throws(WireError) {
        guard case .object(let fields) = value else {
            throw WireError("message must be a JSON object, got \(value.typeName)")
        }
        self.init(fields)
    }

    package func name(_ field: String) -> String { path + field }

    package func required(_ field: String) throws(WireError) -> JSONValue {
        guard let value = fields[field] else { throw WireError("missing field '\(name(field))'") }
        return value
    }

    package func has(_ field: String) -> Bool {
        if let value = fields[field], value != .null { return true }
        return false
    }

    package func number(_ field: String) throws(WireError) -> Double {
        guard case .number(let value) = try required(field) else {
            throw WireError("field '\(name(field))' must be a finite number")
        }
        return value
    }

    package func number(_ field: String, in range: ClosedRange<Double>) throws(WireError) -> Double {
        let value = try number(field)
        guard range.contains(value) else {
            throw WireError("field '\(name(field))' must be a number in \(Self.format(range.lowerBound))…\(Self.format(range.upperBound))")
        }
        return value
    }

    /// An integral number within `range` (bounds within ±2^53, where doubles are exact).
    package func integer(_ field: String, in range: ClosedRange<Int64>) throws(WireError) -> Int64 {
        // The message is made only when thrown: every input's id passes through here.
        func problem() -> WireError { WireError("field '\(name(field))' must be an integer in \(range.lowerBound)…\(range.upperBound)") }
        guard case .number(let value) = try required(field) else { throw problem() }
        guard value == value.rounded(.towardZero),
              value >= Double(range.lowerBound), value <= Double(range.upperBound) else { throw problem() }
        return Int64(value)
    }

    package func int(_ field: String, in range: ClosedRange<Int> = 0...Int(ScrollWire.maxSafeInteger)) throws(WireError) -> Int {
        Int(try integer(field, in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    package func id(_ field: String) throws(WireError) -> UInt64 {
        UInt64(try integer(field, in: Int64(ScrollWire.idRange.lowerBound)...Int64(ScrollWire.idRange.upperBound)))
    }

    package func string(_ field: String) throws(WireError) -> String {
        guard case .string(let value) = try required(field) else {
            throw WireError("field '\(name(field))' must be a string")
        }
        return value
    }

    /// Missing or null → nil.
    package func optionalString(_ field: String) throws(WireError) -> String? {
        has(field) ? try string(field) : nil
    }

    package func bool(_ field: String) throws(WireError) -> Bool {
        guard case .bool(let value) = try required(field) else {
            throw WireError("field '\(name(field))' must be true or false")
        }
        return value
    }

    /// Missing or null → nil.
    package func optionalBool(_ field: String) throws(WireError) -> Bool? {
        has(field) ? try bool(field) : nil
    }

    package func object(_ field: String) throws(WireError) -> FieldReader {
        guard case .object(let nested) = try required(field) else {
            throw WireError("field '\(name(field))' must be an object")
        }
        return FieldReader(nested, path: name(field) + ".")
    }

    /// Missing or null → nil.
    package func optionalObject(_ field: String) throws(WireError) -> FieldReader? {
        has(field) ? try object(field) : nil
    }

    /// An array of objects, each read by `read`.
    package func objects<T>(_ field: String, _ read: (FieldReader) throws(WireError) -> T) throws(WireError) -> [T] {
        guard case .array(let elements) = try required(field) else {
            throw WireError("field '\(name(field))' must be an array")
        }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            guard case .object(let nested) = element else {
                throw WireError("field '\(name(field))[\(i)]' must be an object")
            }
            result.append(try read(FieldReader(nested, path: "\(name(field))[\(i)].")))
        }
        return result
    }

    /// An array of integers.
    package func integers(_ field: String) throws(WireError) -> [Int] {
        guard case .array(let elements) = try required(field) else {
            throw WireError("field '\(name(field))' must be an array")
        }
        var result: [Int] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .number(let value) = element, value == value.rounded(.towardZero),
                  value.magnitude <= Double(ScrollWire.maxSafeInteger) else {
                throw WireError("field '\(name(field))' must be an array of integers")
            }
            result.append(Int(value))
        }
        return result
    }

    /// A string naming one of `options` (by raw value).
    package func choice<E: RawRepresentable>(_ field: String, _ options: [E]) throws(WireError) -> E where E.RawValue == String {
        let raw = try string(field)
        guard let value = E(rawValue: raw), options.contains(where: { $0.rawValue == raw }) else {
            throw WireError.notOneOf(field: name(field), options: options.map { $0.rawValue }, got: raw)
        }
        return value
    }

    package static func format(_ value: Double) -> String {
        var w = JSONWriter(capacity: 24)
        w.number(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
