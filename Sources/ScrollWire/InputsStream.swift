import ScrollEngine

/// Which stream a viewer receives (docs/protocol.md, "The inputs stream"): the room's frames
/// (the default), or the engine's state once and then the room's changes in batches, with beats
/// carrying the hash of the room's frame.
public enum ViewerStream: String, Sendable, Hashable, CaseIterable {
    /// Frames, as every viewer got them before the inputs stream.
    case frames
    /// The engine's state, then `batch`es of changes and hashed `beat`s; no frames.
    case inputs
}

/// What a replica starts from: the `replica` of an inputs-stream snapshot.
public struct ReplicaStart: Sendable, Equatable {
    /// The engine version the state is for (`engine`).
    public var engine: UInt32
    /// The room time the state stands at (`t`): it holds every change at or before it, none after.
    public var time: Double
    /// How many changes the room made in this life up to `time` (`changes`).
    public var changes: UInt64
    /// The input the room's frames name from this state on (`input`).
    public var input: AppliedInput?
    /// The engine's state bytes (`ScrollScene.stateBytes(base:)`); base64 in version 1.
    public var state: [UInt8]

    /// A replica's start.
    public init(engine: UInt32, time: Double, changes: UInt64, input: AppliedInput?, state: [UInt8]) {
        self.engine = engine; self.time = time; self.changes = changes; self.input = input; self.state = state
    }
}

/// A `batch` message: the changes a room made within one period, for its inputs-stream viewers.
public struct BatchMessage: Sendable, Equatable {
    /// The number of the last change in it (changes are numbered from 1 in each life of the room).
    public var changes: UInt64
    /// The complete-history mark as the batch left (exact).
    public var complete: Double
    /// The changes, oldest first, each without `complete`.
    public var applied: [AppliedMessage]

    /// A batch.
    public init(changes: UInt64, complete: Double, applied: [AppliedMessage]) {
        self.changes = changes; self.complete = complete; self.applied = applied
    }

    /// Mark `complete` lowered by less than 1/256 ms to `t` plus a whole number of 1/256 ms,
    /// when `t` (the batch's last change) is at or before it: version 2 then writes it as a Δ
    /// of a byte or two instead of 8. The promise still holds: every change up to the lower mark
    /// has been sent, and it stays at or after every change in the batch.
    public static func compactMark(_ complete: Double, after t: Double) -> Double {
        guard complete.isFinite, t.isFinite, complete >= t else { return complete }
        let lowered = t + ((complete - t) * 256).rounded(.down) / 256
        return lowered >= t && lowered <= complete ? lowered : complete
    }

    /// The number of the first change in it (`changes` + 1 for an empty batch).
    public var firstChange: UInt64 { changes + 1 - UInt64(applied.count) }
}

extension CloseCode {
    /// The inputs stream asked with no engine version, or one this server does not serve.
    public static let engineNotServed = CloseCode(rawValue: 4100)
    /// The inputs stream asked for a room whose scene a replica cannot build. Servers before
    /// file and uploaded scenes could be replicated sent it for those; this one never does, and a
    /// client still takes it as "join again for frames".
    public static let sceneNotReplicable = CloseCode(rawValue: 4101)
}

/// The hash of a beat as version 1 writes it: 16 lowercase hexadecimal digits, most significant first.
public enum HashText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `hash` as 16 hexadecimal digits.
    public static func hex(_ hash: UInt64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int((hash >> UInt64(shift)) & 0xf)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hash written by `hex`, or nil for anything but 16 lowercase hexadecimal digits.
    public static func parse(_ text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16 else { return nil }
        var value: UInt64 = 0
        for b in bytes {
            guard let digit = digits.firstIndex(of: b) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
