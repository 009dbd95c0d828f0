/// The Scrollcast wire protocol (subprotocols `scrollcast.v1` and `scrollcast.v2`): names,
/// versions and every limit a message is checked against. docs/protocol.md is the contract these
/// follow.
public enum ScrollWire {
    /// The WebSocket subprotocol name of version 1; clients offer it in `Sec-WebSocket-Protocol`.
    public static let subprotocol = WireVersion.v1.subprotocol
    /// Every subprotocol a server speaks, preferred first. The transport is configured from this
    /// list (libwebsockets takes the first name in the client's offer that it knows).
    public static let subprotocols = WireVersion.allCases.reversed().map { $0.subprotocol }
    /// Version 1's number, sent as `protocol` in its `snapshot`.
    public static let version = WireVersion.v1.rawValue

    /// Largest message, in bytes, a client may send (16 KiB). Larger ones close with 1009. The
    /// server hands this to the transport, which enforces it while reassembling fragments.
    public static let maxMessageBytes = 16 * 1024
    /// Largest server message `ServerMessageDecoder` accepts (4 MiB). Server messages are not
    /// bound by `maxMessageBytes`: a snapshot lists every row id and can exceed 16 KiB.
    public static let maxServerMessageBytes = 4 * 1024 * 1024
    /// Deepest nesting of JSON objects/arrays a client message may have. Real messages are flat;
    /// the bound keeps the parser's recursion (and so its stack) small on hostile input.
    public static let maxNestingDepth = 16

    /// Scene names in `join.scene`: at most this many characters (the server's catalogue decides
    /// which names exist).
    public static let maxSceneNameLength = 64
    /// The batch periods an inputs-stream viewer may ask for (`join`'s `batchMs`), ms; the
    /// server sends its batches at most once per the longer of it and one frame period.
    public static let batchPeriodRange = 1...1000
    /// The `sceneName` a decoder assumes when a snapshot has none: servers from before scenes
    /// could be chosen only ever showed the demo.
    public static let sceneNameWhenAbsent = "demo"

    /// Room names: 1…`maxRoomNameLength` characters, each in `roomNameCharacters`.
    public static let maxRoomNameLength = 64
    /// Human-readable form of the room name rule, used in error messages and docs.
    public static let roomNameRule = "room name must be 1–64 characters of A–Z a–z 0–9 _ - ."
    /// Longest `client` string in `join`, in Unicode scalars.
    public static let maxClientLength = 64
    /// Longest `driverKey` in `join`, in characters (printable ASCII, no spaces).
    public static let maxDriverKeyLength = 128

    /// Smallest and largest viewport side a `resize` may ask for, in points.
    public static let resizeRange: ClosedRange<Double> = 100...4000
    /// Input ids (and other ids) are integers in this range: what a JSON number (an IEEE double)
    /// carries exactly, so JavaScript clients can count without losing precision.
    public static let idRange: ClosedRange<UInt64> = 1...maxSafeInteger
    /// 2^53 − 1, the largest integer every JSON implementation represents exactly.
    public static let maxSafeInteger: UInt64 = 9_007_199_254_740_991
    /// Bound on the magnitude of coordinates and wheel deltas, in points. Far beyond any screen;
    /// it keeps the engine's arithmetic well inside the range where doubles stay precise.
    public static let maxCoordinateMagnitude: Double = 1_000_000
    /// Largest section or row index `scrollToRow` may name (the engine checks the real table).
    public static let maxIndex = 1_000_000

    /// Returns true when `name` satisfies the room name rule.
    public static func isValidRoomName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= maxRoomNameLength else { return false }
        return utf8.allSatisfy(isRoomNameByte)
    }

    static func isRoomNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Returns true when `key` is a well-formed driver key: 1…128 characters of printable ASCII
    /// without spaces (servers generate them; clients only echo them back).
    public static func isValidDriverKey(_ key: String) -> Bool {
        let utf8 = key.utf8
        guard !utf8.isEmpty, utf8.count <= maxDriverKeyLength else { return false }
        return utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}

/// A version of the protocol, chosen per connection by subprotocol. Clients send the same JSON in
/// both; the server answers version 1 in JSON text and version 2 in binary (docs/protocol.md).
public enum WireVersion: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `scrollcast.v1`: JSON text.
    case v1 = 1
    /// `scrollcast.v2`: binary server messages, texts sent once per room.
    case v2 = 2

    /// The subprotocol name, as offered in `Sec-WebSocket-Protocol`.
    public var subprotocol: String { "scrollcast.v\(rawValue)" }

    /// The version a subprotocol name stands for, or nil for a name that is none.
    public init?(subprotocol: String) {
        guard let version = WireVersion.allCases.first(where: { $0.subprotocol == subprotocol }) else { return nil }
        self = version
    }

    /// "v1" or "v2".
    public var description: String { "v\(rawValue)" }
}
