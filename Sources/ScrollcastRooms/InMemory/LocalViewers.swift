import ScrollWire

/// A room's viewers connected to this node, in join order, and the fan-out to them: one encoded
/// message per protocol version, handed to every sink of that version. `LocalRelay`'s channels
/// are this; a cluster's channels and stand-ins for rooms run elsewhere use it for the viewers
/// connected here.
@RoomActor public struct LocalViewers {
    private let metrics: ServerMetrics
    /// `inputs`: nil for a viewer that did not ask for `applied` messages, else the audience they
    /// go to (`.inputsStream` for a viewer of the inputs stream, which gets no frames).
    private var viewers: [Entry] = []

    /// `batchMs`: the batch period a viewer of the inputs stream asked for (0: the default).
    private typealias Entry = (id: String, sink: ViewerSink, version: WireVersion, inputs: Audience?, batchMs: Int)

    /// No viewers yet; what is handed out is counted in `metrics`.
    public init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    /// Whether nobody is here.
    public var isEmpty: Bool { viewers.isEmpty }

    /// Viewer `viewer`, speaking `version`, writes through `sink`; `watchesInputs` when it asked
    /// for `applied` messages, `complete` when with the complete-history mark.
    public mutating func attach(_ viewer: String, sink: ViewerSink, version: WireVersion, watchesInputs: Bool = false,
                                complete: Bool = false, stream: ViewerStream = .frames, batchMs: Int = 0) {
        let inputs: Audience? = stream == .inputs ? .inputsStream : !watchesInputs ? nil : complete ? .completeWatchers : .inputWatchers
        viewers.append((viewer, sink, version, inputs, batchMs))
    }

    /// Viewer `viewer` left.
    public mutating func detach(_ viewer: String) {
        viewers.removeAll { $0.id == viewer }
    }

    /// Everyone left.
    public mutating func removeAll() {
        viewers.removeAll()
    }

    /// Queues `message` for each viewer of `audience` here, in its version's form.
    public func send(_ message: RoomMessage, to audience: Audience) {
        var bytes = 0
        for viewer in viewers where Self.reaches(audience, viewer) {
            guard let form = message[viewer.version] else { continue }
            viewer.sink.sendReliable(form)
            bytes += form.count
        }
        if bytes > 0 { metrics.bytesOut.increment(by: bytes) }
    }

    /// The versions spoken by the viewers here that `audience` reaches (a cluster's owner
    /// publishes only those forms, and nothing when the set is empty).
    public func versions(reached audience: Audience) -> Set<WireVersion> {
        var versions: Set<WireVersion> = []
        for viewer in viewers where Self.reaches(audience, viewer) { versions.insert(viewer.version) }
        return versions
    }

    /// The versions spoken by the viewers here that take frames (not the inputs stream).
    public var frameVersions: Set<WireVersion> {
        var versions: Set<WireVersion> = []
        for viewer in viewers where viewer.inputs != .inputsStream { versions.insert(viewer.version) }
        return versions
    }

    private static func reaches(_ audience: Audience, _ viewer: Entry) -> Bool {
        switch audience {
        case .inputWatchers, .completeWatchers, .inputsStream: return viewer.inputs == audience
        case .inputsBatches(let batchMs): return viewer.inputs == .inputsStream && viewer.batchMs == batchMs
        case .framesStream: return viewer.inputs != .inputsStream
        case .framesStreamExcept(let id): return viewer.inputs != .inputsStream && viewer.id != id
        default: return audience.includes(viewer.id)
        }
    }

    /// Offers a frame to every viewer here, in its version's form, each viewer's part of
    /// `leading` queued reliably right before it so that they leave together.
    public func sendFrame(_ message: RoomMessage, after leading: [LeadingMessage]) {
        guard !viewers.isEmpty else { return }
        if leading.isEmpty { return sendFrame(message) }
        var skipped = 0, sent = 0, bytes = 0
        var forms: [OutgoingMessage] = []
        for viewer in viewers {
            forms.removeAll(keepingCapacity: true)
            for lead in leading where Self.reaches(lead.audience, viewer) {
                if let form = lead.message[viewer.version] { forms.append(form) }
            }
            bytes += forms.reduce(0) { $0 + $1.count }
            guard viewer.inputs != .inputsStream, let form = message[viewer.version] else {
                for reliable in forms { viewer.sink.sendReliable(reliable) }
                continue
            }
            if viewer.sink.sendLatest(form, after: forms) { skipped += 1 }
            sent += 1
            bytes += form.count
        }
        if skipped > 0 { metrics.framesSkipped.increment(by: skipped) }
        metrics.framesSent.increment(by: sent)
        metrics.bytesOut.increment(by: bytes)
    }

    /// Offers a frame to every viewer here, in its version's form.
    public func sendFrame(_ message: RoomMessage) {
        // No form: every viewer here takes the inputs stream (the room encoded no frame).
        guard !viewers.isEmpty, message.v1 != nil || message.v2 != nil else { return }
        // Counters once per frame, not once per viewer: at a thousand viewers the per-viewer
        // increments were a visible share of the fan-out loop.
        var skipped = 0, sent = 0, bytes = 0
        // By index, each viewer's sink and version read in place: iterating would copy every
        // entry out (its id and sink retained and released).
        for i in viewers.indices {
            guard let form = message[viewers[i].version], viewers[i].inputs != .inputsStream else { continue }
            if viewers[i].sink.sendLatest(form) { skipped += 1 }
            sent += 1
            bytes += form.count
        }
        if skipped > 0 { metrics.framesSkipped.increment(by: skipped) }
        metrics.framesSent.increment(by: sent)
        metrics.bytesOut.increment(by: bytes)
    }
}

extension Audience {
    /// Whether a message for this audience goes to `viewer`.
    public func includes(_ viewer: String) -> Bool {
        switch self {
        case .viewer(let id): return id == viewer
        case .everyone: return true
        case .everyoneExcept(let id), .framesStreamExcept(let id): return id != viewer
        // Whether it asked, and which stream it takes, is known where it is connected (LocalViewers).
        case .inputWatchers, .completeWatchers, .inputsStream, .inputsBatches, .framesStream: return true
        }
    }

    /// Whether this audience is (part of) the inputs stream: its batches and beats.
    public var isInputsStream: Bool {
        switch self {
        case .inputsStream, .inputsBatches: return true
        default: return false
        }
    }
}
