import ScrollEngine
import ScrollWire

/// Plays a recording back through the engine: no server, no clock. Each frame comes out as the
/// `frame` message the room sent (docs/protocol.md), byte for byte, except `sentAt`, which is
/// the server's wall clock when it encoded the frame and is not in the recording; replay writes
/// the `sentAt` it is given (0 by default).
public enum Replay {
    /// Calls `emit` with each frame's message, in order. `configuration` is the recording's
    /// scene (`header.scene`) as the catalogue builds it; the header's row order is applied to
    /// it. Throws, naming the line, when the row order does not fit the scene or the engine
    /// refuses an input (a recording of another build's scene, or a hand-made one).
    public static func frames(of recording: Recording, configuration: SceneConfiguration, sentAt: Double = 0,
                              _ emit: ([UInt8]) -> Void) throws(RecordingError) {
        guard let start = configuration.reorderingRows(recording.header.rowOrder) else {
            let rows = configuration.sections.reduce(0) { $0 + $1.rows.count }
            throw RecordingError(line: 1, "rowOrder does not fit scene '\(recording.header.scene)' as this build has it "
                                 + "(\(configuration.sections.count) sections, \(rows) rows)")
        }
        var scene = ScrollScene(configuration: start)
        var lastInput: AppliedInput?
        for (index, entry) in recording.entries.enumerated() {
            switch entry {
            case let .input(viewer, event):
                do {
                    _ = try scene.apply(event)
                } catch {
                    throw RecordingError(line: Recording.line(ofEntry: index), "the engine refused this input: \(error)")
                }
                lastInput = AppliedInput(viewer: viewer, id: event.id)
            case let .cancel(_, event):
                do {
                    _ = try scene.apply(event)
                } catch {
                    throw RecordingError(line: Recording.line(ofEntry: index), "the engine refused this cancel: \(error)")
                }
            case let .frame(sequence, time):
                var frame = scene.frame(at: time)
                frame.sequence = sequence
                emit(ServerMessageEncoder.frame(frame, input: lastInput, sentAt: sentAt))
            }
        }
    }

    /// Every frame's message, in order (see `frames(of:configuration:sentAt:_:)`).
    public static func frames(of recording: Recording, configuration: SceneConfiguration,
                              sentAt: Double = 0) throws(RecordingError) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        try frames(of: recording, configuration: configuration, sentAt: sentAt) { messages.append($0) }
        return messages
    }
}
