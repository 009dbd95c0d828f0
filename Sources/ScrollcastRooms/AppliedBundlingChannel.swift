import ScrollWire

/// A room's channel that holds its `applied` messages back until the frame that first shows them,
/// and hands them over with it (`sendFrame(_:sequence:after:)`), so that a viewer who asked for
/// them gets them and the frame in one write instead of one write each (issue 21: at 1,000
/// viewers all asking, one write per `applied` doubled the writes and multiplied the driver's p99
/// input-to-frame; bench/where-the-time-goes.md §9).
///
/// Every other message still goes out when it is sent, and the held ones go first: before any
/// other reliable message, before a viewer is attached (a watcher joining gets what the room
/// applied since its last frame from its snapshot's follow-up, `sendAppliedState`, and must not
/// get it twice), and when the room skips a frame (`flush`). So each viewer gets the same
/// messages in the same order as when every `applied` went out on its own; only later, by at
/// most the wait for the next frame, which input's own frame has anyway (`FramePacer`: half a
/// period at most).
@RoomActor final class AppliedBundlingChannel: RoomChannel {
    private let channel: RoomChannel
    /// `applied` messages (`hold`) not yet handed over, in order.
    private var held: [LeadingMessage] = []

    /// Holds the `applied` messages sent through `channel`.
    init(_ channel: RoomChannel) {
        self.channel = channel
    }

    func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool, complete: Bool,
                stream: ViewerStream, batchMs: Int) {
        flush()
        channel.attach(viewer, sink: sink, version: version, watchesInputs: watchesInputs, complete: complete, stream: stream, batchMs: batchMs)
    }

    func detach(_ viewer: String) {
        channel.detach(viewer)
    }

    /// Holds an `applied` message for `audience` until the next frame, another message or `flush`.
    func hold(_ message: RoomMessage, to audience: Audience) {
        held.append(LeadingMessage(message, to: audience))
    }

    func send(_ message: RoomMessage, to audience: Audience) {
        flush()
        channel.send(message, to: audience)
    }

    func sendFrame(_ message: RoomMessage, sequence: UInt64) {
        sendFrame(message, sequence: sequence, after: [])
    }

    func sendFrame(_ message: RoomMessage, sequence: UInt64, after leading: [LeadingMessage]) {
        guard !held.isEmpty else { return channel.sendFrame(message, sequence: sequence, after: leading) }
        let bundle = held + leading
        held.removeAll(keepingCapacity: true)
        channel.sendFrame(message, sequence: sequence, after: bundle)
    }

    /// Sends what is held now, without a frame.
    func flush() {
        guard !held.isEmpty else { return }
        let pending = held
        held.removeAll(keepingCapacity: true)
        for lead in pending { channel.send(lead.message, to: lead.audience) }
    }

    func close() {
        held.removeAll()
        channel.close()
    }
}
