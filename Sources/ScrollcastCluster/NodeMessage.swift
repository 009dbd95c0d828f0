import Foundation
import ScrollWire

/// What a node sends a room's owner on the owner's node channel. Binary, big-endian:
///
/// ```
/// u8 format (2) · u8 kind (1 roster, 2 input, 3 refused, 4 keyframe, 5 sharing) · u16+bytes room · u16+bytes node, then
///   roster:   the viewers as a JSON array (RosterViewer's fields)
///   input:    u16+bytes viewer · the input (`RelayedInput`: typed binary), nothing after it
///   refused:  u16+bytes viewer · u64 input id (0xFFFFFFFFFFFFFFFF: none, a sharing message) · u16+bytes code · u16+bytes reason
///   keyframe: u16+bytes viewer
///   sharing:  u16+bytes viewer · the message as its client sent it (JSON text, `ClientMessageEncoder.sharing`)
/// ```
///
/// - `roster`: every viewer of the room connected to the sending node. The owner makes its
///   room's viewers from that node exactly these, joining new ones (each gets a snapshot),
///   dropping missing ones, and sending a fresh snapshot to one whose `generation` changed (its
///   node missed messages). Sent on every change and every `rosterMilliseconds`, so a lost one
///   heals by itself; a few per second per room, so legibility wins over size there.
/// - `input`: one input of one of those viewers.
/// - `refused`: the other way, to the node of viewer `viewer`: its input was not applied (the
///   node it reached does not run the room, or stopped running it before applying it). The
///   viewer's node passes the refusal on; it is never published, so it needs no lease.
/// - `keyframe`: viewer `viewer`, of the inputs stream, asked for a keyframe; the owner's room
///   answers it as one node does (a snapshot, or the move to frames), through the relay.
/// - `sharing`: a sharing message of viewer `viewer` (docs/protocol.md, "Sharing"); the owner's
///   room handles it as one node does, and its answers reach their viewers through the relay.
///   Refused (`refused` with no input) when the owner does not know the viewer or the room.
enum NodeMessage: Equatable {
    case roster(room: String, node: String, viewers: [RosterViewer])
    case input(room: String, node: String, viewer: String, input: InputMessage)
    /// `input` nil: the refusal of a sharing message.
    case refused(room: String, node: String, viewer: String, input: UInt64?, code: RefusalCode, reason: String)
    case keyframe(room: String, node: String, viewer: String)
    case sharing(room: String, node: String, viewer: String, request: SharingRequest)

    static let format: UInt8 = 2
    /// `refused`'s input id when it refuses no input; outside `ScrollWire.idRange`.
    static let noInput = UInt64.max

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
        /// Whether it asked for `applied` messages (`join`'s `inputs`).
        var inputs: Bool?
        /// Whether it asked for the complete-history mark (`join`'s `complete`).
        var complete: Bool?
        /// `"inputs"` for a viewer of the inputs stream (`join`'s `stream`); absent for frames.
        var stream: String?
        /// The engine version it replicates with (`join`'s `engine`), in the inputs stream.
        var engine: UInt32?
        /// The batch period it asked for (`join`'s `batchMs`), in the inputs stream.
        var batchMs: Int?

        /// The join request the owner admits this viewer with.
        func joinRequest(room: String) -> JoinRequest {
            JoinRequest(room: room, driverKey: key, resumable: resumable ?? false, resume: resume, inputs: inputs ?? false,
                        complete: complete ?? false, stream: stream.flatMap(ViewerStream.init(rawValue:)) ?? .frames,
                        engine: engine, batchMs: batchMs)
        }
    }

    var room: String {
        switch self {
        case .roster(let room, _, _), .input(let room, _, _, _), .refused(let room, _, _, _, _, _), .keyframe(let room, _, _),
             .sharing(let room, _, _, _): room
        }
    }

    var node: String {
        switch self {
        case .roster(_, let node, _), .input(_, let node, _, _), .refused(_, let node, _, _, _, _), .keyframe(_, let node, _),
             .sharing(_, let node, _, _): node
        }
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.format]
        switch self {
        case let .roster(room, node, viewers):
            out.append(1)
            ClusterBytes.appendShort(Array(room.utf8), to: &out)
            ClusterBytes.appendShort(Array(node.utf8), to: &out)
            // Encoding these plain fields cannot fail.
            out.append(contentsOf: (try? JSONEncoder().encode(viewers)) ?? Data("[]".utf8))
        case let .input(room, node, viewer, input):
            out.append(2)
            ClusterBytes.appendShort(Array(room.utf8), to: &out)
            ClusterBytes.appendShort(Array(node.utf8), to: &out)
            ClusterBytes.appendShort(Array(viewer.utf8), to: &out)
            RelayedInput.append(input, to: &out)
        case let .refused(room, node, viewer, input, code, reason):
            out.append(3)
            ClusterBytes.appendShort(Array(room.utf8), to: &out)
            ClusterBytes.appendShort(Array(node.utf8), to: &out)
            ClusterBytes.appendShort(Array(viewer.utf8), to: &out)
            ClusterBytes.append(input ?? Self.noInput, to: &out)
            ClusterBytes.appendShort(Array(code.rawValue.utf8), to: &out)
            ClusterBytes.appendShort(Array(reason.utf8), to: &out)
        case let .keyframe(room, node, viewer):
            out.append(4)
            ClusterBytes.appendShort(Array(room.utf8), to: &out)
            ClusterBytes.appendShort(Array(node.utf8), to: &out)
            ClusterBytes.appendShort(Array(viewer.utf8), to: &out)
        case let .sharing(room, node, viewer, request):
            out.append(5)
            ClusterBytes.appendShort(Array(room.utf8), to: &out)
            ClusterBytes.appendShort(Array(node.utf8), to: &out)
            ClusterBytes.appendShort(Array(viewer.utf8), to: &out)
            out.append(contentsOf: ClientMessageEncoder.sharing(request).utf8)
        }
        return out
    }

    /// The message in `bytes`, or nil when it is not one (another format, damaged).
    static func decode(_ bytes: [UInt8]) -> NodeMessage? {
        var reader = ClusterBytesReader(bytes: bytes)
        guard reader.byte() == format, let kind = reader.byte(), let room = reader.text(), let node = reader.text() else { return nil }
        switch kind {
        case 1:
            guard let viewers = try? JSONDecoder().decode([RosterViewer].self, from: Data(reader.rest())) else { return nil }
            return .roster(room: room, node: node, viewers: viewers)
        case 2:
            guard let viewer = reader.text(), let input = RelayedInput.read(&reader), reader.atEnd else { return nil }
            return .input(room: room, node: node, viewer: viewer, input: input)
        case 3:
            guard let viewer = reader.text(), let input = reader.u64(), let code = reader.text().flatMap(RefusalCode.init(rawValue:)),
                  let reason = reader.text(), reader.atEnd else { return nil }
            return .refused(room: room, node: node, viewer: viewer, input: input == Self.noInput ? nil : input, code: code,
                            reason: reason)
        case 4:
            guard let viewer = reader.text(), reader.atEnd else { return nil }
            return .keyframe(room: room, node: node, viewer: viewer)
        case 5:
            // Decoded as the viewer's node decoded it: the same rules, so nothing else passes.
            guard let viewer = reader.text(), case .sharing(let request)? = try? ClientMessageDecoder.decode(reader.rest())
            else { return nil }
            return .sharing(room: room, node: node, viewer: viewer, request: request)
        default:
            return nil
        }
    }
}
