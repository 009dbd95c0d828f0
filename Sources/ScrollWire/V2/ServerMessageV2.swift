import ScrollEngine

/// A decoded version-2 server message: one of the messages both versions send (a frame's rows,
/// headers and panel with their texts filled in from the decoder's `WireTextTable`, so it equals
/// what version 1 decodes for the same frame), or the texts that version 2 sends apart from frames.
public enum ServerMessageV2: Sendable, Equatable {
    /// `snapshot`, `frame`, `rowMoved`, `presence`, `refused` or `error`, as version 1 has them.
    case message(ServerMessage)
    /// Row texts, section titles and panel labels that frames name from now on (reliable).
    case texts(WireTexts)
}

/// The first byte of every version-2 server message (docs/protocol.md, "Version 2").
public enum ServerMessageTypeV2: UInt8, Sendable, CaseIterable {
    /// `snapshot`: first message after `join`.
    case snapshot = 1
    /// `frame`: one frame of the room.
    case frame = 2
    /// `texts`: texts for rows, section headers and panel labels (reliable).
    case texts = 3
    /// `rowMoved` (reliable).
    case rowMoved = 4
    /// `presence`.
    case presence = 5
    /// `refused`: an input that was not applied.
    case refused = 6
    /// `error`: a protocol error; the server closes next.
    case error = 7
    /// `resumed`: the answer to a `join` with `resume` (only for clients that ask).
    case resumed = 8
    /// `applied`: a change the room applied to its scene (only for clients that ask).
    case applied = 9
    /// `beat`: how far the room's history is complete (only for clients that ask).
    case beat = 10
    /// `asked`: a viewer asks to drive a locked room (docs/protocol.md, "Sharing").
    case asked = 11
    /// `granted`: a key holder let an asker drive.
    case granted = 12
    /// `denied`: a key holder turned a request down.
    case denied = 13
    /// `expired`: a request lapsed unanswered.
    case expired = 14
    /// `follow`: exploring viewers are called back.
    case follow = 15
    /// `batch`: the changes of one period (the inputs stream).
    case batch = 16
    /// `beat` with the hash of the room's frame (the inputs stream).
    case hashedBeat = 17
    /// `held`: one of this viewer's stamped inputs waits for its time (only to its sender).
    case held = 18
    /// `pong`: the answer to a client's `ping`.
    case pong = 19
}

/// Bits of a version-2 frame's flags byte.
enum FrameFlagsV2 {
    static let animating: UInt8 = 0x01
    static let input: UInt8 = 0x02
    static let panel: UInt8 = 0x04
    static let lifted: UInt8 = 0x08
    static let placeholder: UInt8 = 0x10
    static let settling: UInt8 = 0x20
    static let all: UInt8 = 0x3F
}

/// Bits of a version-2 frame row's code byte.
enum RowCodeV2 {
    /// Bits 0–1: where the row is. 0: the row after the previous entry's (same section, row + 1).
    static let pathNext: UInt8 = 0
    /// 1: the first row of the section after the previous entry's.
    static let pathNextSection: UInt8 = 1
    /// 2: section and row follow as varints.
    static let pathExplicit: UInt8 = 2
    static let pathMask: UInt8 = 0x03
    /// The id is not the previous entry's + 1: the difference follows.
    static let id: UInt8 = 0x04
    /// `y` is not the previous entry's `y + h`: the difference follows.
    static let y: UInt8 = 0x08
    /// `h` differs from the height in the row's texts: it follows.
    static let height: UInt8 = 0x10
    static let all: UInt8 = 0x1F
}

/// Phases in version 2: one byte each.
enum PhaseV2 {
    static let phases: [ScrollPhase] = [.idle, .tracking, .decelerating, .bouncing, .animating]

    static func code(_ phase: ScrollPhase) -> UInt8 {
        UInt8(phases.firstIndex(of: phase) ?? 0)
    }
}

/// Bits of the snapshot's, presence's and refused's flags bytes.
enum MessageFlagsV2 {
    static let driver: UInt8 = 0x01
    static let locked: UInt8 = 0x02
    static let driverKey: UInt8 = 0x04
    static let background: UInt8 = 0x08
    /// Snapshot only: `life` and `moves` follow `driverKey` (for viewers that asked).
    static let resumePoint: UInt8 = 0x10
    /// Snapshot only: `replica` follows `life` and `moves` (the inputs stream).
    static let replica: UInt8 = 0x20
    static let snapshotAll: UInt8 = 0x3F
    static let resumedAll: UInt8 = 0x07
    /// Presence only: `exploring` follows.
    static let exploring: UInt8 = 0x04
    /// Presence only: `granted` follows.
    static let granted: UInt8 = 0x08
    static let presenceAll: UInt8 = 0x0F
    static let refusedInput: UInt8 = 0x01
}
