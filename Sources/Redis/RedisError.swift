/// A failure of the link to Redis: not connected, an I/O error, a timeout, a protocol error, or a
/// queue or subscriber that is closed. An error *reply* from Redis is ``RedisValue/error(_:)``.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, with the link's name and address where they are known.
    public var message: String

    /// Creates an error with the given explanation.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
