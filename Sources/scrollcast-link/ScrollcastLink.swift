import ArgumentParser
import LinkEmulator

#if canImport(Glibc)
import Glibc
#endif

/// `scrollcast-link`: a TCP proxy that makes loopback behave like a real network (docs/links.md).
@main
struct ScrollcastLink: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scrollcast-link",
        abstract: "A TCP proxy that emulates a real link: delay, jitter, stalls, a bandwidth cap, cuts.",
        discussion: """
            Every connection to --listen is joined to a new connection to --upstream; each \
            direction's bytes are held to the profile's schedule (order kept). Profiles: \
            \(LinkProfile.all.map(\.summary).joined(separator: "; ")). Flags override a \
            profile's values. The first stdout line reads \
            "scrollcast-link listening on HOST:PORT control HOST:CPORT profile NAME". \
            Control endpoint: POST /cut cuts every connection (answers {"cut": N}); GET /stats \
            answers counters and the emulator's own timing error as JSON. Model and limits: \
            docs/links.md.
            """)

    @Option(help: ArgumentHelp("Where the server listens.", valueName: "host:port"))
    var upstream: String

    @Option(help: ArgumentHelp("Where clients connect (port 0: a free port).", valueName: "host:port"))
    var listen = "127.0.0.1:0"

    @Option(help: ArgumentHelp("Link profile: \(LinkProfile.all.map(\.name).joined(separator: ", ")).", valueName: "name"))
    var profile = "4g"

    @Option(help: "One-way delay in ms, each direction (overrides the profile).")
    var delayMs: Double?

    @Option(help: "Jitter in ms: extra delay uniform in 0 … this, per chunk (overrides the profile).")
    var jitterMs: Double?

    @Option(help: "Probability (0 … 1) that a chunk stalls its direction (overrides the profile).")
    var stallProbability: Double?

    @Option(help: "Length of a stall in ms (overrides the profile; default 200).")
    var stallMs: Double?

    @Option(help: "Bandwidth cap per direction in Mbit/s; 0 removes the cap (overrides the profile).")
    var rateMbit: Double?

    @Option(help: "Seed of the delay generator (same seed, same delays).")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Port of the control endpoint on 127.0.0.1 (0: a free port).", valueName: "n"))
    var controlPort = 0

    /// The named profile with the flags' overrides applied.
    func resolvedProfile() throws -> LinkProfile {
        guard var chosen = LinkProfile.named(profile) else {
            throw ValidationError("unknown --profile '\(profile)'; choose one of \(LinkProfile.all.map(\.name).joined(separator: ", "))")
        }
        let overridden = [delayMs, jitterMs, stallProbability, stallMs, rateMbit].contains { $0 != nil }
        if let delayMs { chosen.delayMs = delayMs }
        if let jitterMs { chosen.jitterMs = jitterMs }
        if let stallProbability { chosen.stallProbability = stallProbability }
        if let stallMs { chosen.stallMs = stallMs }
        if let rateMbit { chosen.rateMbit = rateMbit == 0 ? nil : rateMbit }
        if overridden { chosen.name = "\(profile)+custom" }
        if let problem = chosen.problem { throw ValidationError(problem) }
        return chosen
    }

    func validate() throws {
        guard LinkAddress(parsing: upstream) != nil else { throw ValidationError("--upstream must be HOST:PORT, got '\(upstream)'") }
        guard LinkAddress(parsing: listen) != nil else { throw ValidationError("--listen must be HOST:PORT, got '\(listen)'") }
        guard (0...65_535).contains(controlPort) else { throw ValidationError("--control-port must be 0 … 65535") }
        _ = try resolvedProfile()
    }

    func run() throws {
        let emulator: LinkEmulator
        do {
            emulator = try LinkEmulator(
                profile: try resolvedProfile(), seed: seed, listen: LinkAddress(parsing: listen)!,
                upstream: LinkAddress(parsing: upstream)!, control: LinkAddress(host: "127.0.0.1", port: controlPort))
        } catch {
            FileHandle.standardError.write("scrollcast-link: error: \(error)\n")
            throw ExitCode(1)
        }
        signal(SIGPIPE, SIG_IGN)
        let control = emulator.controlAddress!
        print("scrollcast-link listening on \(emulator.listenAddress) control \(control) profile \(emulator.profile.name)")
        print("scrollcast-link: \(emulator.profile.summary), seed \(seed), upstream \(upstream)")
        fflush(nil)  // the first line must reach a pipe at once
        StopOnSignal.install(emulator)
        emulator.run(raisePriority: true)
        print("scrollcast-link: stopped; \(emulator.stats.timingSummary)")
    }
}

/// SIGINT and SIGTERM stop the loop (it returns from `run()` and the process exits 0).
enum StopOnSignal {
    nonisolated(unsafe) static var emulator: LinkEmulator?

    static func install(_ emulator: LinkEmulator) {
        self.emulator = emulator
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in StopOnSignal.emulator?.requestStop() }
        }
    }
}

enum FileHandle {
    static let standardError = StandardError()

    struct StandardError {
        func write(_ text: String) {
            var bytes = Array(text.utf8)
            _ = Glibc.write(2, &bytes, bytes.count)
        }
    }
}
