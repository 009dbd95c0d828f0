import Foundation
import ScrollWire

/// What a node sends a room's owner on the owner's node channel (JSON; a few per second per
/// room, so legibility wins over size):
/// - `roster`: every viewer of the room connected to the sending node. The owner makes its
///   room's viewers from that node exactly these, joining new ones (each gets a snapshot),
///   dropping missing ones, and sending a fresh snapshot to one whose `generation` changed (its
///   node missed messages). Sent on every change and every `rosterMilliseconds`, so a lost one
///   heals by itself.
/// - `input`: one input of one of those viewers, as the client sent it.
struct NodeMessage: Codable, Equatable {
    enum Kind: String, Codable {
        case roster
        case input
    }

    var type: Kind
    var room: String
    var node: String
    /// For `roster`.
    var viewers: [RosterViewer]?
    /// For `input`: the viewer and its `input` message's JSON text.
    var viewer: String?
    var input: String?

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

        /// The join request the owner admits this viewer with.
        func joinRequest(room: String) -> JoinRequest {
            JoinRequest(room: room, driverKey: key, resumable: resumable ?? false, resume: resume, inputs: inputs ?? false)
        }
    }

    static func roster(room: String, node: String, viewers: [RosterViewer]) -> NodeMessage {
        NodeMessage(type: .roster, room: room, node: node, viewers: viewers)
    }

    static func input(room: String, node: String, viewer: String, text: String) -> NodeMessage {
        NodeMessage(type: .input, room: room, node: node, viewer: viewer, input: text)
    }

    func encoded() -> [UInt8] {
        // Encoding these plain fields cannot fail.
        Array((try? JSONEncoder().encode(self)) ?? Data())
    }

    static func decode(_ bytes: [UInt8]) -> NodeMessage? {
        try? JSONDecoder().decode(NodeMessage.self, from: Data(bytes))
    }
}
