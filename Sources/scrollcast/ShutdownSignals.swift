import Dispatch
import Foundation

/// SIGINT and SIGTERM as dispatch sources, so shutdown runs as ordinary code rather than in a
/// signal handler.
enum ShutdownSignals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Calls `handler` (once) with the signal's name when SIGINT or SIGTERM arrives.
    static func install(_ handler: @escaping @Sendable (String) -> Void) {
        let queue = DispatchQueue(label: "scrollcast.signals")
        let once = OnceFlag()
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { if once.claim() { handler(name) } }
            source.resume()
            sources.append(source)
        }
    }
}

/// True exactly once, on a serial queue.
private final class OnceFlag: @unchecked Sendable {
    private var used = false
    func claim() -> Bool {
        defer { used = true }
        return !used
    }
}
