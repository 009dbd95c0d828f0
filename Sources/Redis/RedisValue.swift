/// One reply from Redis, as RESP2 defines it.
///
/// An `.error` is a reply like any other (the command ran and Redis refused it); a failure of the
/// link itself is a ``RedisError`` instead.
public enum RedisValue: Sendable, Hashable {
    /// A bulk string, byte for byte (it may hold NUL bytes or invalid UTF-8).
    case string([UInt8])
    /// A simple status line such as `OK` or `PONG` (the text after `+`).
    case status(String)
    /// An error reply such as `ERR unknown command` (the text after `-`).
    case error(String)
    /// An integer reply.
    case integer(Int64)
    /// A nil bulk string or nil array (`GET` of a missing key, `SET ... NX` that did not set).
    case null
    /// An array reply; its elements may be of any kind, arrays included.
    case array([RedisValue])

    /// The bytes of a bulk string or status line; nil for every other kind.
    public var bytes: [UInt8]? {
        switch self {
        case .string(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// A bulk string or status line as text; nil for other kinds and for bytes that are not UTF-8.
    public var text: String? {
        switch self {
        case .string(let bytes): String(validating: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The value of an integer reply; nil for every other kind.
    public var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The elements of an array reply; nil for every other kind.
    public var array: [RedisValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The text of an error reply; nil for every other kind.
    public var errorMessage: String? {
        if case .error(let message) = self { message } else { nil }
    }

    /// Whether this is the nil reply.
    public var isNull: Bool { self == .null }
}
