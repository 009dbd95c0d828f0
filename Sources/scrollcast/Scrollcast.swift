import ArgumentParser
import Foundation

/// `scrollcast`: the server (the default subcommand, so plain `scrollcast [options]` serves),
/// and the tools for recordings of its rooms.
@main
struct ScrollcastCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "scrollcast",
            abstract: "Serve the Scrollcast page and stream iOS-style scroll effects to every viewer of a room; record and replay rooms; check scene files.",
            usage: """
                scrollcast [serve] [<options>]
                scrollcast record --data <path> --room <name> [--life <n>] --out <file>
                scrollcast replay <file>
                scrollcast scene check <file> ...
                """,
            discussion: """
                Without a subcommand, scrollcast serves: 'scrollcast [options]' is 'scrollcast serve [options]'. \
                \(ServeCommand.discussion)

                \(serveOptions())
                """,
            subcommands: [ServeCommand.self, RecordCommand.self, ReplayCommand.self, SceneCommand.self],
            defaultSubcommand: ServeCommand.self)
    }

    /// The server's options as its own help lists them, so the top-level help shows them too
    /// (ArgumentParser lists only the subcommands there), wrapped to the same width.
    private static func serveOptions() -> String {
        let help = ServeCommand.helpMessage()
        guard let start = help.range(of: "OPTIONS:") else { return "" }
        let lines = help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("--help") }
        let options = lines.joined(separator: "\n")
        return "SERVE OPTIONS:" + options[..<(options.lastIndex { !$0.isWhitespace }.map(options.index(after:)) ?? options.endIndex)]
    }
}
