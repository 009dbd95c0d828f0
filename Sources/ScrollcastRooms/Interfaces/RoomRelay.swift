import ScrollWire

/// Where a room's messages go: to its viewers, wherever they are connected. The room hands each
/// message to its channel once; on one node `LocalRelay` delivers it to the sinks of the viewers
/// connected here, and a cluster relay would publish it once for every node to deliver.
@RoomActor public protocol RoomRelay: AnyObject {
    /// The channel of room `lease.room`, which this node runs under `lease`.
    func openChannel(for lease: RoomLease) -> RoomChannel
}

/// One room's way to its viewers. Called only on the room thread. Each viewer speaks one protocol
/// version and gets the form of each message in that version (`RoomMessage`); the room encodes
/// every message once per version, the channel never encodes.
///
/// Per viewer, messages arrive in the order they are handed over, and a reliable message handed
/// over before a frame arrives before that frame: version 2 sends the texts a frame needs that way.
@RoomActor public protocol RoomChannel: AnyObject {
    /// Viewer `viewer`, speaking `version`, is connected here through `sink`; `watchesInputs`
    /// when its join asked for `applied` messages (audience `.inputWatchers`), `complete` when it
    /// asked for them with the complete-history mark (audience `.completeWatchers` instead);
    /// `stream` `.inputs` for a viewer of the inputs stream (audience `.inputsStream`: no frames,
    /// nothing for `.framesStream`), whose batches go to `.inputsBatches(batchMs)` (0: the
    /// default period).
    func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool, complete: Bool,
                stream: ViewerStream, batchMs: Int)
    /// Viewer `viewer` left.
    func detach(_ viewer: String)
    /// Sends a message that must arrive to `audience` (each viewer gets its version's form, if
    /// the message has one).
    func send(_ message: RoomMessage, to audience: Audience)
    /// Offers frame number `sequence` to every viewer (in its version's form); a viewer still
    /// writing an older frame gets this one in its place.
    func sendFrame(_ message: RoomMessage, sequence: UInt64)
    /// Sends each of `leading` as `send` would, then offers frame `sequence` as `sendFrame` would,
    /// so that a viewer's part of them can leave together (`ViewerSink.sendLatest(_:after:)`).
    func sendFrame(_ message: RoomMessage, sequence: UInt64, after leading: [LeadingMessage])
    /// The room is gone; the channel delivers nothing more.
    func close()
}

/// Who a reliable message is for.
public enum Audience: Sendable, Hashable {
    /// One viewer.
    case viewer(String)
    /// Every viewer of the room.
    case everyone
    /// Every viewer but one (presence after a join: the joiner's snapshot says it already).
    case everyoneExcept(String)
    /// Every viewer whose join asked for `applied` messages (`inputs: true`) without the
    /// complete-history mark. Only the node a viewer is connected to knows whether it asked, so a
    /// cluster relays these to every node.
    case inputWatchers
    /// Every viewer whose join asked for `applied` messages with the complete-history mark
    /// (`inputs: true, complete: true`): their `applied` carry `complete`, and they get `beat`s.
    case completeWatchers
    /// Every viewer of the inputs stream (`batch`es, hashed `beat`s; docs/protocol.md, "The inputs
    /// stream"). Known where the viewer is connected, as for `.inputWatchers`.
    case inputsStream
    /// The viewers of the inputs stream that asked for batches every `batchMs` ms (0: the
    /// default, one frame period): one encoded batch for all of them.
    case inputsBatches(Int)
    /// Every viewer of the frames stream (version 2's `texts`, which only frames need).
    case framesStream
    /// Every viewer of the frames stream but one (texts a joiner's own snapshot carries).
    case framesStreamExcept(String)
}

/// A reliable message that goes out right before a frame (`RoomChannel.sendFrame(_:sequence:after:)`).
public struct LeadingMessage {
    /// The message in each version.
    public var message: RoomMessage
    /// Who gets it.
    public var audience: Audience

    /// `message` for `audience`.
    public init(_ message: RoomMessage, to audience: Audience) {
        self.message = message
        self.audience = audience
    }
}

extension RoomChannel {
    /// `send` for each of `leading`, then `sendFrame`: a channel that cannot bundle them.
    public func sendFrame(_ message: RoomMessage, sequence: UInt64, after leading: [LeadingMessage]) {
        for lead in leading { send(lead.message, to: lead.audience) }
        sendFrame(message, sequence: sequence)
    }

    /// A viewer that did not ask for `applied` messages.
    public func attach(_ viewer: String, sink: ViewerSink, version: WireVersion) {
        attach(viewer, sink: sink, version: version, watchesInputs: false, complete: false)
    }

    /// A viewer of the frames stream.
    public func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool, complete: Bool) {
        attach(viewer, sink: sink, version: version, watchesInputs: watchesInputs, complete: complete, stream: .frames, batchMs: 0)
    }

    /// A viewer that did not ask for the complete-history mark.
    public func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool) {
        attach(viewer, sink: sink, version: version, watchesInputs: watchesInputs, complete: false)
    }
}
