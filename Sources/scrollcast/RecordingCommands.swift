import ArgumentParser
import Foundation
import ScrollcastRecording
import ScrollcastRooms
import ScrollcastStore

/// A failure of a subcommand, printed as "Error: <message>" (without the usage, which was fine).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `scrollcast record`: one life of a room from the SQLite file, as a recording.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Write one life of a room, from the server's SQLite file, as a recording (docs/recording.md).",
        discussion: """
            Reads the file while the server runs or after it stopped (a running server writes its log \
            every few ms; SIGTERM writes the rest). A room starts a new life each time it is made in \
            memory (created, or restored after eviction or a restart), with its clock and frame numbers \
            from 0 again; the latest life is written unless --life says which.
            """)

    @Option(help: ArgumentHelp("The SQLite file the server keeps rooms in (its --data).", valueName: "path"))
    var data: String

    @Option(help: ArgumentHelp("The room.", valueName: "name"))
    var room: String

    @Option(help: ArgumentHelp("Which life of the room, from 1. Default: the latest.", valueName: "n"))
    var life: Int?

    @Option(help: ArgumentHelp("The --fps the server ran with, noted as the recording's framePeriod. Default: not noted.",
                               valueName: "fps"))
    var fps: Int?

    @Option(help: ArgumentHelp("Where to write the recording; '-' for standard output.", valueName: "file"))
    var out: String

    @OptionGroup var sceneFolder: SceneFolderOption

    func validate() throws {
        if let life, life < 1 { throw ValidationError("--life must be 1 or more, got \(life)") }
        if let fps, !(1...240).contains(fps) { throw ValidationError("--fps must be 1…240, got \(fps)") }
        guard !out.isEmpty else { throw ValidationError("--out must be a file path or '-'") }
    }

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory) else {
            throw CommandFailure("no such file: \(data) (pass the --data file the server keeps rooms in)")
        }
        guard !isDirectory.boolValue else { throw CommandFailure("\(data) is a directory, not the server's SQLite file") }
        let database: RoomDatabase
        do {
            database = try RoomDatabase.open(atPath: data)
        } catch {
            throw CommandFailure(error.description)
        }
        defer { database.close() }
        let recording: Recording
        do {
            guard let roomLife = try database.roomLife(named: room, life: life) else {
                throw CommandFailure("no room '\(room)' in \(data)")
            }
            guard !roomLife.entries.isEmpty else {
                throw CommandFailure("room '\(room)' life \(roomLife.life) has no log in \(data) yet: it has applied no input and sent no frame")
            }
            let catalogue = try sceneFolder.catalogue()
            guard catalogue.contains(roomLife.start.sceneName) || sceneFolder.scenes != nil else {
                throw CommandFailure("room '\(room)' shows scene '\(roomLife.start.sceneName)', which this build's catalogue lacks (\(catalogue.namesList)); for a scene file's room, pass --scenes DIR")
            }
            recording = try roomLife.recording(scenes: catalogue, framePeriod: fps.map { 1000 / Double($0) })
        } catch let error as RoomStoreError {
            throw CommandFailure(error.message)
        }
        let bytes = RecordingEncoder.encode(recording)
        if out == "-" {
            FileHandle.standardOutput.write(Data(bytes))
        } else {
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw CommandFailure("cannot write \(out): \(error.localizedDescription)")
            }
        }
        let frames = recording.entries.reduce(0) { if case .frame = $1 { $0 + 1 } else { $0 } }
        let note = "room '\(room)' life \(recording.header.life ?? 0): \(recording.entries.count - frames) inputs, \(frames) frames"
        FileHandle.standardError.write(Data("wrote \(note) to \(out == "-" ? "standard output" : out)\n".utf8))
    }
}

/// `scrollcast replay`: a recording's frames, from the engine alone.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Print the frames a recording produces, one `frame` message (protocol v1 JSON) per line.",
        discussion: """
            No server and no clock: the engine replays the recording's inputs and takes each frame \
            at its recorded time, with this build's scenes (and those of --scenes DIR). The frames are byte for byte the ones \
            the room's viewers received, except sentAt (the server's wall clock when it sent each \
            one, which a recording does not keep): it is printed as --sent-at, 0 by default.
            """)

    @Argument(help: ArgumentHelp("The recording; '-' for standard input.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The sentAt every frame is printed with.", valueName: "ms"))
    var sentAt: Double = 0

    @OptionGroup var sceneFolder: SceneFolderOption

    func validate() throws {
        guard sentAt.isFinite else { throw ValidationError("--sent-at must be a finite number") }
    }

    func run() throws {
        let bytes: Data
        if file == "-" {
            bytes = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard FileManager.default.fileExists(atPath: file) else { throw CommandFailure("no such file: \(file)") }
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
            }
        }
        let name = file == "-" ? "standard input" : file
        let catalogue = try sceneFolder.catalogue()
        let output = FileHandle.standardOutput
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        do {
            let recording = try RecordingDecoder.decode(bytes)
            guard let configuration = catalogue.configuration(named: recording.header.scene) else {
                throw RecordingError(line: 1, "scene '\(recording.header.scene)' is not in this build's catalogue (\(catalogue.namesList))\(sceneFolder.scenes == nil ? "; for a scene file's room, pass --scenes DIR" : "")")
            }
            try Replay.frames(of: recording, configuration: configuration, sentAt: sentAt) { frame in
                buffer.append(contentsOf: frame)
                buffer.append(UInt8(ascii: "\n"))
                if buffer.count >= 1 << 20 {
                    output.write(Data(buffer))
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            output.write(Data(buffer))
            throw CommandFailure("\(name): \(error)")
        }
        output.write(Data(buffer))
    }
}
