/// Collects a file's errors as the decoder finds them, keeping the first
/// `SceneFileLimits.maxErrorsReported` and counting the rest.
final class SceneFileReport {
    private(set) var errors: [SceneFileError] = []
    private var leftOut = 0

    func add(_ path: String, _ line: Int?, _ message: String) {
        if errors.count < SceneFileLimits.maxErrorsReported {
            errors.append(SceneFileError(path: path, line: line, message))
        } else {
            leftOut += 1
        }
    }

    var isEmpty: Bool { errors.isEmpty }

    /// The errors, ending with one that counts those left out, if any were.
    var all: [SceneFileError] {
        leftOut == 0 ? errors : errors + [SceneFileError(path: "$", line: nil, "\(leftOut) more errors not shown")]
    }
}

/// An object of the file being decoded: its fields by name, with missing, unknown and duplicate
/// fields reported against its path.
struct SceneObject {
    let path: String
    let line: Int
    private let members: [String: SceneJSON.Member]
    private let report: SceneFileReport

    /// `value` as an object with the fields `known`; nil (reported) when it is not an object.
    /// Reports every unknown and every repeated field at once.
    init?(_ value: SceneJSON, path: String, known: [String], report: SceneFileReport) {
        guard case .object(let list) = value.kind else {
            report.add(path, value.line, "must be an object, got \(value.typeName)")
            return nil
        }
        self.path = path
        self.line = value.line
        self.report = report
        var members: [String: SceneJSON.Member] = [:]
        for member in list {
            let memberPath = path + SceneFilePath.field(member.key)
            if members[member.key] != nil {
                report.add(memberPath, member.line, "duplicate field '\(member.key)' (also on line \(members[member.key]!.line))")
                continue
            }
            if !known.contains(member.key) {
                report.add(memberPath, member.line, "unknown field '\(member.key)' (known here: \(known.joined(separator: ", ")))")
            }
            members[member.key] = member
        }
        self.members = members
    }

    /// The field's value and path; nil when absent, reported when `required`.
    func field(_ key: String, required: Bool = false) -> (value: SceneJSON, path: String)? {
        guard let member = members[key] else {
            if required { report.add(path, line, "missing field '\(key)'") }
            return nil
        }
        return (member.value, path + SceneFilePath.field(key))
    }

    /// A number field that must satisfy `rule`; `fallback` when absent and not required, nil
    /// (reported) when wrong.
    func number(_ key: String, _ rule: NumberRule, default fallback: Double? = nil) -> Double? {
        guard let (value, path) = field(key, required: fallback == nil) else { return fallback }
        return rule.check(value, path: path, report: report)
    }

    /// A text field of at most `SceneFileLimits.maxTextLength` scalars.
    func text(_ key: String, default fallback: String? = nil) -> String? {
        guard let (value, path) = field(key, required: fallback == nil) else { return fallback }
        return Self.text(value, path: path, report: report)
    }

    static func text(_ value: SceneJSON, path: String, report: SceneFileReport) -> String? {
        guard case .string(let text) = value.kind else {
            report.add(path, value.line, "must be a string, got \(value.typeName)")
            return nil
        }
        guard text.unicodeScalars.count <= SceneFileLimits.maxTextLength else {
            report.add(path, value.line, "is \(text.unicodeScalars.count) characters long; at most \(SceneFileLimits.maxTextLength)")
            return nil
        }
        return text
    }

    /// An array field; nil (reported) when absent or not an array.
    func array(_ key: String) -> (elements: [SceneJSON], path: String, line: Int)? {
        guard let (value, path) = field(key, required: true) else { return nil }
        guard case .array(let elements) = value.kind else {
            report.add(path, value.line, "must be an array, got \(value.typeName)")
            return nil
        }
        return (elements, path, value.line)
    }
}

/// What a number in a scene must be. JSON has no NaN or infinity, but a literal too large for a
/// double (1e999) reads as infinity: every rule refuses non-finite numbers.
enum NumberRule {
    /// Any finite number (a resting y may be negative).
    case finite
    /// 0 or more.
    case nonNegative
    /// More than 0.
    case positive
    /// Within the range.
    case within(ClosedRange<Double>)

    func check(_ value: SceneJSON, path: String, report: SceneFileReport) -> Double? {
        guard case .number(let number) = value.kind else {
            report.add(path, value.line, "must be a number, got \(value.typeName)")
            return nil
        }
        guard number.isFinite else {
            report.add(path, value.line, "must be a finite number (this one is too large for a double)")
            return nil
        }
        switch self {
        case .finite: return number
        case .nonNegative where number < 0:
            report.add(path, value.line, "must not be negative, got \(Self.text(number))")
        case .positive where number <= 0:
            report.add(path, value.line, "must be more than 0, got \(Self.text(number))")
        case .within(let range) where !range.contains(number):
            report.add(path, value.line, "must be \(Self.text(range.lowerBound))…\(Self.text(range.upperBound)), got \(Self.text(number))")
        default: return number
        }
        return nil
    }

    /// 44 for 44.0, else the shortest form.
    static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
