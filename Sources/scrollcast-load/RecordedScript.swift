import Foundation
import ScrollEngine
import ScrollcastRecording

/// A recording's inputs as a driver's script (`--replay`): a real session, played with its
/// original timing.
///
/// Every input line of the recording, whichever viewer sent it, in room-time order, becomes one
/// long gesture that starts at the first input. The driver plays it, waits `pauseMs`, and plays
/// it again for as long as the run lasts. The room's own cancels are not inputs and are left out.
struct RecordedScript: Sendable {
    /// Pause after the last input before the recording plays again: time for a fling recorded
    /// at the very end to come to rest, as the person would have let it.
    static let pauseMs = 1_000.0

    /// The file's name, for the report.
    let name: String
    /// The room the recording was made in.
    let room: String
    /// The inputs, `atMs` after the first.
    let gesture: Gesture

    /// The script of the recording at `path`; throws with the file and line of anything wrong.
    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScriptError("cannot read --replay \(path)")
        }
        let recording: Recording
        do {
            recording = try RecordingDecoder.decode(data)
        } catch {
            throw ScriptError("--replay \(path): \(error)")
        }
        let inputs = recording.entries.compactMap { entry -> InputEvent? in
            if case .input(_, let event) = entry { return event }
            return nil
        }
        guard let first = inputs.first, let last = inputs.last else {
            throw ScriptError("--replay \(path): the recording has no inputs to play")
        }
        name = (path as NSString).lastPathComponent
        room = recording.header.room
        gesture = Gesture(inputs: inputs.map { TimedInput(atMs: $0.time - first.time, kind: $0.kind) },
                          lengthMs: last.time - first.time + Self.pauseMs)
    }

    /// Inputs in one playing.
    var inputCount: Int { gesture.inputs.count }
    /// One playing, pause included, seconds.
    var lengthSeconds: Double { gesture.lengthMs / 1000 }

    /// "browser-session.jsonl (72 inputs over 9.4 s, from room 'x')", for the report.
    var summary: String {
        String(format: "%@ (%d inputs over %.1f s, from room '%@')", name, inputCount,
               (gesture.lengthMs - Self.pauseMs) / 1000, room)
    }
}

/// A problem with `--replay`, said as the CLI should say it.
struct ScriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
