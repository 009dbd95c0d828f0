/// Why a message was refused: a human-readable reason naming the field, and the close code
/// to use when closing the connection over it.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. "field 'x' must be a finite number". Safe to send to the client
    /// in an `error` message.
    public var message: String
    /// The WebSocket close code that goes with it (1008 malformed, 1009 too big, 1007 bad UTF-8).
    public var closeCode: UInt16

    /// Creates an error; the close code defaults to 1008 (policy violation).
    public init(_ message: String, closeCode: UInt16 = CloseCode.policyViolation) {
        self.message = message
        self.closeCode = closeCode
    }

    /// The message followed by the close code, for logs.
    public var description: String { "\(message) (close \(closeCode))" }
}
