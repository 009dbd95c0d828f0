import ArgumentParser
import Foundation
import Logging

/// `scrollcast --conformance-echo`: only the echo endpoint, for Autobahn (scripts/run-conformance.sh).
enum ConformanceEcho {
    /// Listens, prints the usual first line, and echoes until SIGINT/SIGTERM (then exits 0).
    static func run(host: String, port: Int, logger: Logger) throws -> Never {
        let endpoint = EchoEndpoint()
        let boundPort: Int
        do {
            boundPort = try endpoint.start(host: host, port: port)
        } catch {
            throw ValidationError("cannot listen on \(host):\(port): \(error)")
        }
        FileHandle.standardOutput.write(Data("scrollcast listening on http://\(host):\(boundPort)\n".utf8))
        logger.warning("conformance echo mode: only ws://\(host):\(boundPort)\(EchoEndpoint.path) is served")
        ShutdownSignals.install { _ in
            endpoint.shutdown()
            Foundation.exit(0)
        }
        dispatchMain()
    }
}
