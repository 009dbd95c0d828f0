import Foundation
import ScrollWire
import ScrollcastRooms

/// A viewer's connection in memory: records everything the room layer writes to it, in order,
/// and how it was closed. Frames are written at once (a connection that keeps up) unless
/// `isSlow`: then frames pile up unsent, so each newer frame replaces the previous one (as a
/// congested connection's latest slot does) until `flush()`.
public final class RecordingViewerSink: ViewerSink {
    /// Everything received in order: reliable messages and frames.
    public private(set) var received: [OutgoingMessage] = []
    /// How the room layer closed the connection, if it did.
    public private(set) var closedWith: CloseReason?
    /// Whether frames wait in the latest slot instead of being written.
    public var isSlow = false
    private var unsentFrame: OutgoingMessage?

    /// An empty sink.
    public init() {}

    public func sendReliable(_ message: OutgoingMessage) { received.append(message) }

    public func sendLatest(_ message: OutgoingMessage) -> Bool {
        if isSlow {
            defer { unsentFrame = message }
            return unsentFrame != nil
        }
        received.append(message)
        return false
    }

    /// Reliable messages handed over together with a frame (`sendLatest(_:after:)`), so far.
    public private(set) var receivedWithFrames = 0

    public func sendLatest(_ message: OutgoingMessage, after leading: [OutgoingMessage]) -> Bool {
        received += leading
        receivedWithFrames += leading.count
        return sendLatest(message)
    }

    public func close(_ reason: CloseReason) { closedWith = reason }

    /// A slow viewer's connection catches up: the frame waiting in its latest slot is written.
    public func flush() {
        if let frame = unsentFrame { received.append(frame) }
        unsentFrame = nil
    }

    /// Forgets what was received so far.
    public func clear() { received.removeAll() }
}

extension RecordingViewerSink {
    /// Everything received, decoded as a version-2 client does: one decoder, in order, so texts
    /// and snapshots feed the frames after them. Throws at the first message it cannot decode.
    public func v2Messages() throws -> [ServerMessageV2] {
        var decoder = ServerMessageDecoderV2()
        return try received.map { message throws(WireError) in
            guard message.kind == .binary else { throw WireError("a text message reached a version-2 viewer") }
            return try decoder.decode(message.bytes)
        }
    }

    /// The version-2 messages that are not `texts`, as version 1 decodes its own.
    public func v2Common() throws -> [ServerMessage] {
        try v2Messages().compactMap { if case .message(let m) = $0 { m } else { nil } }
    }

    /// Everything received by a version-1 viewer, decoded.
    public func v1Messages() throws -> [ServerMessage] {
        try received.map { message throws(WireError) in try ServerMessageDecoder.decode(message.bytes) }
    }

    /// Messages decoded as JSON objects (a version-1 viewer's view, as a test reads it).
    public var messages: [[String: Any]] { received.map(decodeJSON) }

    /// Only the messages of one type.
    public func messages(ofType type: String) -> [[String: Any]] { messages.filter { $0["type"] as? String == type } }
}

/// `message` decoded as a JSON object, or `["type": "<not JSON>"]`.
public func decodeJSON(_ message: OutgoingMessage) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(message.bytes))) as? [String: Any] ?? ["type": "<not JSON>"]
}
