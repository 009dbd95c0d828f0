internal import CLibWebSockets
import Synchronization
import Glibc

/// Routes libwebsockets' own log lines to a Swift closure (plug swift-log in here).
public enum LibWebSocketsLog {
    /// Severity of a libwebsockets log line.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Something failed.
        case error = 1
        /// Something looks wrong.
        case warning = 2
        /// Noteworthy but normal.
        case notice = 4
        /// Informational.
        case info = 8
        /// Debug detail (only if libwebsockets was built with debug logging).
        case debug = 16
        /// Orders by severity: error < warning < notice < info < debug.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Receives a level and one line (trailing newline removed).
    public typealias Sink = @Sendable (Level, String) -> Void

    /// The default sink: one "lws [E|W|N|I|D] line" per line on stderr.
    public static let standardErrorSink: Sink = { level, line in
        let tag = ["E", "W", "N", "I", "D"][Level.allCases.firstIndex(of: level) ?? 2]
        FileHandleStderr.write("lws [\(tag)] \(line)\n")
    }

    private static let sink = Mutex<Sink>(standardErrorSink)

    /// Sends every line at `maximumLevel` or more severe to `sink`. Default: warnings and errors to stderr.
    /// Process-wide, because libwebsockets' log setting is.
    ///
    /// `.notice` passes warnings and errors only: lws's libev plugin (the epoll loop, ServiceLoop)
    /// logs every change of a socket's watchers at notice level, several per frame per viewer, and
    /// lws formats each line before the sink could drop it. `.info` and `.debug` pass everything.
    public static func route(maximumLevel: Level = .warning, to newSink: @escaping Sink) {
        sink.withLock { $0 = newSink }
        configured.withLock { $0 = true }
        install(maximumLevel: maximumLevel)
    }

    private static let configured = Mutex(false)

    /// Installs the default routing unless `route` was called already.
    static func installDefaultOnce() {
        let isFirst = configured.withLock { configured in
            defer { configured = true }
            return !configured
        }
        if isFirst { install(maximumLevel: .warning) }
    }

    private static func install(maximumLevel: Level) {
        let passed = maximumLevel == .notice ? Level.warning : maximumLevel
        let mask = Level.allCases.filter { $0 <= passed }.reduce(0) { $0 | $1.rawValue }
        lws_set_log_level(Int32(mask), emitLibWebSocketsLogLine)
    }

    fileprivate static func emit(level: Int32, line: String) {
        let chosen = Level.allCases.first { Int32($0.rawValue) & level != 0 } ?? .notice
        var trimmed = Substring(line)
        while trimmed.last == "\n" || trimmed.last == "\r" { trimmed.removeLast() }
        let current = sink.withLock { $0 }
        current(chosen, String(trimmed))
    }
}

/// The C emit function libwebsockets calls for each log line.
private func emitLibWebSocketsLogLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    LibWebSocketsLog.emit(level: level, line: String(cString: line))
}

/// Writes to stderr without Foundation.
enum FileHandleStderr {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }
}
