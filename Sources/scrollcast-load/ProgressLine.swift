#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live status line on standard error: redrawn in place on a terminal, one plain line per
/// update otherwise (logs and CI keep every line readable).
struct ProgressLine {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var drewInPlace = false

    mutating func show(_ text: String) {
        if isTerminal {
            // Clear to the end of the line so a shorter update leaves no tail.
            write("\r\(text)\u{1B}[K")
            drewInPlace = true
        } else {
            write(text + "\n")
        }
    }

    /// Ends an in-place line so what follows starts on a fresh one.
    mutating func finish() {
        if drewInPlace { write("\n") }
        drewInPlace = false
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

extension String {
    /// One decimal place, without Foundation's format machinery.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        self = "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}
