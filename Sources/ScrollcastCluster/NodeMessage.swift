import Foundation
import ScrollWire

/// What a node sends a room's owner on the owner's node channel. Binary, big-endian:
///
/// ```
/// u8 format (2) · u8 kind (1 roster, 2 input) · u16+bytes room · u16+bytes node, then
///   roster: the viewers as a JSON array (RosterViewer's fields)
///   input:  u16+bytes viewer · the input message as its client sent it (protocol v1 JSON,
///           re-encoded by ScrollWire), decoded once by the owner
/// ```
///
/// - `roster`: every viewer of the room connected to the sending node. The owner makes its
///   room's viewers from that node exactly these, joining new ones (each gets a snapshot),
///   dropping missing ones, and sending a fresh snapshot to one whose `generation` changed (its
///   node missed messages). Sent on every change and every `rosterMilliseconds`, so a lost one
///   heals by itself; a few per second per room, so legibility wins over size there.
/// - `input`: one input of one of those viewers.
enum NodeMessage: Equatable {
    case roster(room: String, node: String, viewers: [RosterViewer])
    case input(room: String, node: String, viewer: String, input: InputMessage)

    static let format: UInt8 = 2

    /// One viewer of a roster.
    struct RosterViewer: Codable, Equatable {
        var id: String
        /// Its protocol version (1 or 2).
        var version: Int
        /// Bumped by its node when the viewer needs a fresh snapshot.
        var generation: Int
        /// The driver key it presents (a locked room's), if any.
        var key: String?
        /// Whether it asked to be told the room's life (`join`'s `resumable` or `resume`).
        var resumable: Bool?
        /// Where it asks to resume (`join`'s `resume`), until it has had its answer.
        var resume: ResumeRequest?

        /// The join request the owner admits this viewer with.
        func joinRequest(room: String) -> JoinRequest {
            JoinRequest(room: room, driverKey: key, resumable: resumable ?? false, resume: resume)
        }
    }

    var room: String {
        switch self {
        case .roster(let room, _, _), .input(let room, _, _, _): room
        }
    }

    var node: String {
        switch self {
        case .roster(_, let node, _), .input(_, let node, _, _): node
        }
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.format]
        switch self {
        case let .roster(room, node, viewers):
            out.append(1)
            Self.appendShort(room, to: &out)
            Self.appendShort(node, to: &out)
            // Encoding these plain fields cannot fail.
            out.append(contentsOf: (try? JSONEncoder().encode(viewers)) ?? Data("[]".utf8))
        case let .input(room, node, viewer, input):
            out.append(2)
            Self.appendShort(room, to: &out)
            Self.appendShort(node, to: &out)
            Self.appendShort(viewer, to: &out)
            out.append(contentsOf: ClientMessageEncoder.input(input).utf8)
        }
        return out
    }

    /// The message in `bytes`, or nil when it is not one (another format, damaged, not an input).
    static func decode(_ bytes: [UInt8]) -> NodeMessage? {
        var index = 0
        func short() -> String? {
            guard bytes.count - index >= 2 else { return nil }
            let count = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard bytes.count - index - 2 >= count else { return nil }
            defer { index += 2 + count }
            return String(validating: bytes[index + 2..<index + 2 + count], as: UTF8.self)
        }
        guard bytes.count >= 2, bytes[0] == format else { return nil }
        let kind = bytes[1]
        index = 2
        guard let room = short(), let node = short() else { return nil }
        switch kind {
        case 1:
            guard let viewers = try? JSONDecoder().decode([RosterViewer].self, from: Data(bytes[index...])) else { return nil }
            return .roster(room: room, node: node, viewers: viewers)
        case 2:
            guard let viewer = short(),
                  case .input(let input)? = try? ClientMessageDecoder.decode(Array(bytes[index...])) else { return nil }
            return .input(room: room, node: node, viewer: viewer, input: input)
        default:
            return nil
        }
    }

    private static func appendShort(_ text: String, to out: inout [UInt8]) {
        let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
        out.append(UInt8(bytes.count >> 8))
        out.append(UInt8(bytes.count & 0xFF))
        out.append(contentsOf: bytes)
    }
}
