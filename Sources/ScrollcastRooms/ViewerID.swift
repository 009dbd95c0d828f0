/// One viewer connection, as the room layer knows it: whatever the transport, a number that
/// is never reused while the server runs. (A joined viewer's name on the wire, "v12", is a
/// different thing: it counts joins, not connections.)
public struct ViewerID: Hashable, Sendable, CustomStringConvertible {
    /// The number behind the identifier.
    public let rawValue: UInt64
    /// Wraps a number the transport (or a test) hands out.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// "#<number>", short enough for log lines.
    public var description: String { "#\(rawValue)" }
}
