import ArgumentParser
import Foundation

/// A `--room-ttl` / `--log-window` value: a number with a unit (`7d`, `24h`, `90m`, `30s`; a
/// bare number is seconds), or `never` to keep for ever.
struct RetentionDuration: ExpressibleByArgument, CustomStringConvertible, Sendable {
    /// Seconds; nil: never.
    let seconds: TimeInterval?

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "never" {
            seconds = nil
            return
        }
        let units: [(String, TimeInterval)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        let (number, scale) = units.first { text.hasSuffix($0.0) }.map { (String(text.dropLast()), $0.1) } ?? (text, 1)
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        seconds = value * scale
    }

    var description: String {
        guard let seconds else { return "never" }
        // Days from two on (24h reads better than 1d), else the largest unit that divides it.
        for (unit, scale, least) in [("d", 86_400.0, 172_800.0), ("h", 3_600.0, 3_600.0), ("m", 60.0, 60.0)]
        where seconds >= least && seconds.truncatingRemainder(dividingBy: scale) == 0 {
            return "\(Int(seconds / scale))\(unit)"
        }
        return "\(seconds)s"
    }
}
