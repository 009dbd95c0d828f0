import ArgumentParser
import Foundation
import Logging
import SceneFiles
import ScrollcastRooms

/// `scrollcast scene …`: tools for scene files (docs/scenes.md).
struct SceneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "Check scene files (JSON scenes served with --scenes DIR).",
        subcommands: [SceneCheckCommand.self])
}

/// `scrollcast scene check FILE…`: every error of every file, exit 0 only when all are good.
struct SceneCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check scene files as the server would load them with --scenes DIR.",
        discussion: """
            Reads each FILE (a scene's JSON; its images beside it) and prints every error as \
            FILE:LINE: PATH: message (FILE: PATH: message when it has no line), PATH being the JSON \
            path of the value at fault, e.g. $.sections[2].rows[0].height. A good file gets one line: \
            FILE: ok, with its scene's name and size. The scene's name is the file's name without \
            .json. Checked: JSON syntax, missing, unknown, duplicate and wrongly typed fields, \
            negative or non-finite sizes, at most \(SceneFileLimits.maxRows) rows, unique section \
            titles, and every image: readable, PNG, JPEG or WebP by its content (not SVG), \
            structurally whole (a PNG's data inflating to its rows), and the pixel size the scene \
            gives it. Exit status: 0 when every file is good, 1 otherwise. Format: docs/scenes.md.
            """)

    @Argument(help: ArgumentHelp("Scene files to check.", valueName: "file"))
    var files: [String]

    func run() throws {
        let reserved = Set(SceneCatalogue.standard.entries.map(\.name))
        var bad = 0
        for file in files {
            switch SceneFileLoader.load(path: file, reservedNames: reserved) {
            case .success(let scene):
                print("\(file): ok: scene '\(scene.name)', \(SceneSummary(scene))")
            case .failure(let errors):
                bad += 1
                errors.lines.forEach { print($0) }
            }
        }
        if bad > 0 {
            FileHandle.standardError.write(Data("\(bad) of \(files.count) scene files have errors\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// "3 sections, 40 rows, 4 images", for the check's ok line and the server's log.
struct SceneSummary: CustomStringConvertible {
    let scene: SceneFile
    init(_ scene: SceneFile) { self.scene = scene }

    var description: String {
        let sections = scene.configuration.sections
        let rows = sections.reduce(0) { $0 + $1.rows.count }
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        return "\(count(sections.count, "section")), \(count(rows, "row")), \(count(scene.images.count, "image"))"
    }
}

/// The scenes `--scenes DIR` adds to the built-in ones.
enum SceneFolder {
    /// The standard catalogue plus every good scene in `folder`; each bad file is logged with
    /// its errors and left out. Throws only when the folder cannot be listed.
    static func catalogue(adding folder: String, logger: Logger) throws -> SceneCatalogue {
        let standard = SceneCatalogue.standard
        let loaded: (scenes: [SceneFile], failures: [SceneFileErrors])
        do {
            loaded = try SceneFileLoader.loadFolder(folder, reservedNames: Set(standard.entries.map(\.name)))
        } catch {
            throw ValidationError("--scenes \(folder): cannot list the folder: \(error.localizedDescription)")
        }
        for failure in loaded.failures {
            logger.error("scene file left out: \(failure.path) has \(failure.errors.count) error\(failure.errors.count == 1 ? "" : "s"): \(failure.lines.joined(separator: " | "))")
        }
        for scene in loaded.scenes {
            logger.info("scene '\(scene.name)' added from \(folder): \(SceneSummary(scene))")
        }
        return standard.adding(loaded.scenes.map { scene in
            let configuration = scene.configuration
            return SceneCatalogue.Entry(
                name: scene.name,
                assets: scene.images.map { SceneAsset(path: $0.servedPath, contentType: $0.format.contentType, bytes: $0.bytes) },
                build: { configuration })
        })
    }
}

/// `--scenes DIR` of `record` and `replay`: the scene files a recorded room's server was given.
struct SceneFolderOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The folder of scene files the server was given (its --scenes), for a room showing one of them.",
        valueName: "dir"))
    var scenes: String?

    /// The built-in scenes and, with --scenes, the folder's; only bad files are logged (at error):
    /// they are why a scene may be missing.
    func catalogue() throws -> SceneCatalogue {
        guard let scenes else { return .standard }
        var quiet = Logger(label: "scrollcast")
        quiet.logLevel = .error
        return try SceneFolder.catalogue(adding: scenes, logger: quiet)
    }
}
