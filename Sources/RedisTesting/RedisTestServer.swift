import Foundation
import Glibc
import Redis

/// A real redis-server of the test's own, on a free loopback port in a fresh temporary directory
/// (append-only file on, RDB snapshots off), so tests can kill and restart it at will.
public final class RedisTestServer: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    private var process: Process?

    /// The server's address (database 0 unless given).
    public func address(database: Int = 0) -> RedisAddress {
        RedisAddress(host: "127.0.0.1", port: port, database: database)
    }

    /// Starts a server and returns once it answers PING.
    public init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("scrollcast-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Another process may take the free port before redis-server binds it: try a few.
        var lastError: Error?
        for _ in 0..<5 {
            let candidate = try Loopback.freePort()
            do {
                process = try Self.launch(port: candidate, directory: directory)
                port = candidate
                return
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw lastError ?? TestFailure("redis-server did not start")
    }

    deinit {
        if let process, process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGTERM, then waits for the process to end (Redis writes its append-only file first).
    public func stop() {
        signalAndWait(SIGTERM)
    }

    /// SIGKILL, then waits for the process to end: the server vanishes without a word.
    public func kill() {
        signalAndWait(SIGKILL)
    }

    /// SIGSTOP: the server keeps its sockets open but answers nothing (a hung server).
    public func pause() {
        if let process { Glibc.kill(process.processIdentifier, SIGSTOP) }
    }

    /// SIGCONT after ``pause()``.
    public func resume() {
        if let process { Glibc.kill(process.processIdentifier, SIGCONT) }
    }

    /// Starts the server again on the same port and directory (stopping it first if it runs).
    public func restart() throws {
        stop()
        process = try Self.launch(port: port, directory: directory)
    }

    private func signalAndWait(_ signal: Int32) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, signal)
        // A stopped process would not act on SIGTERM.
        Glibc.kill(process.processIdentifier, SIGCONT)
        process.waitUntilExit()
    }

    private static func launch(port: Int, directory: URL) throws -> Process {
        let log = directory.appendingPathComponent("redis-\(port).log")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path,
            "--save", "", "--appendonly", "yes", "--daemonize", "no", "--logfile", log.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()

        let deadline = Date(timeIntervalSinceNow: 15)
        while Date() < deadline {
            if Loopback.answersPing(port: port) { return process }
            guard process.isRunning else {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no log)"
                throw TestFailure("redis-server on port \(port) exited at start: \(text.suffix(600))")
            }
            usleep(20_000)
        }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw TestFailure("redis-server on port \(port) did not answer PING within 15 s")
    }
}
