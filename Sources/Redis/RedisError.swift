/// A failure of the link to Redis, or a reply its reader could not use, with its context: which
/// link, which command (by name: never its arguments, which carry payloads, driver keys and
/// script texts), and, when a reply was the problem, what kind of reply it was. An error *reply*
/// that the caller handles itself is ``RedisValue/error(_:)``, not this.
///
/// ```
/// Redis command queue n0 commands (redis://127.0.0.1:6379/0): timed out after 1000 ms [timeout] while running EVALSHA
/// ```
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is, for programs to act on (``message`` is for people).
    public enum Code: String, Sendable, Hashable {
        /// A URL that is no `redis://HOST[:PORT][/DB]`.
        case invalidAddress
        /// The queue or subscriber was not started yet.
        case notStarted
        /// The queue or subscriber is closed (or closed before the reply came).
        case closed
        /// The link was down when the command was sent; it was not sent.
        case notConnected
        /// The server could not be reached (refused, unreachable, timed out connecting).
        case cannotConnect
        /// A read or write on the link failed, or the link dropped before the reply.
        case io
        /// No reply within the timeout.
        case timeout
        /// Bytes that are not RESP, or data no command asked for.
        case protocolError
        /// A reply of a kind the reader cannot use (``reply`` says which).
        case unexpectedReply
        /// Redis answered the command with an error reply (``reply`` has its text).
        case errorReply
        /// The command was empty.
        case invalidCommand
        /// The process ran out of something (memory, file descriptors).
        case resources
    }

    /// What kind of failure it is.
    public var code: Code
    /// What went wrong, without the context below.
    public var message: String
    /// The link: its name and address, where it is known ("Redis command queue NAME (redis://…)").
    public var link: String?
    /// The command's name (``commandName(of:)``: e.g. `EVALSHA`, `CLIENT SETNAME`), when the
    /// failure belongs to one command.
    public var command: String?
    /// The reply that was wrong, by kind (``RedisValue/kindDescription``), when it was the problem.
    public var reply: String?

    /// An error of kind `code`, with what is known of its context.
    public init(_ code: Code, _ message: String, link: String? = nil, command: String? = nil, reply: String? = nil) {
        self.code = code
        self.message = message
        self.link = link
        self.command = command
        self.reply = reply
    }

    /// The same error, now known to belong to command `arguments` (its name only).
    public func running(_ arguments: [[UInt8]]) -> RedisError {
        var copy = self
        copy.command = Self.commandName(of: arguments)
        return copy
    }

    /// "LINK: MESSAGE [CODE] while running COMMAND; reply: REPLY", each part where known.
    public var description: String {
        var text = link.map { "\($0): " } ?? ""
        text += "\(message) [\(code.rawValue)]"
        if let command { text += " while running \(command)" }
        if let reply { text += "; reply: \(reply)" }
        return text
    }

    /// Commands whose second word names what they do (`CLIENT SETNAME`, `SCRIPT LOAD`).
    private static let containers: Set<String> = [
        "ACL", "CLIENT", "CLUSTER", "COMMAND", "CONFIG", "FUNCTION", "MEMORY", "MODULE", "OBJECT", "PUBSUB",
        "SCRIPT", "SLOWLOG", "XGROUP", "XINFO",
    ]

    /// A command's name for a log line: its first word in capitals, and the second for the
    /// commands that are families (`CLIENT SETNAME`); nothing else of it, as the arguments may be
    /// secrets or megabytes. A first word that is not a plain word is shown as "?".
    public static func commandName(of arguments: [[UInt8]]) -> String {
        func word(_ bytes: [UInt8]) -> String? {
            guard (1...32).contains(bytes.count),
                  bytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F || $0 == 0x2D })
            else { return nil }
            return String(decoding: bytes, as: UTF8.self).uppercased()
        }
        guard let first = arguments.first.flatMap(word) else { return "?" }
        guard containers.contains(first), arguments.count > 1, let second = word(arguments[1]) else { return first }
        return "\(first) \(second)"
    }
}

extension RedisValue {
    /// The reply's kind, for an error message: `integer 1`, `bulk string (12 bytes)`, `array of
    /// 3`, `nil`, `status OK`, `error reply: ERR …`. Bulk strings are not shown: they may hold
    /// payloads or keys; integers, statuses and error texts are Redis's own words.
    public var kindDescription: String {
        switch self {
        case .string(let bytes): "bulk string (\(bytes.count) bytes)"
        case .status(let text): "status \(text.prefix(64))"
        case .error(let text): "error reply: \(text.prefix(200))"
        case .integer(let value): "integer \(value)"
        case .null: "nil"
        case .array(let elements): "array of \(elements.count)"
        }
    }
}
