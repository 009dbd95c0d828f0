/// A failure of the WebSocket layer, with enough context to act on.
public struct WebSocketError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The listening socket could not be set up (port in use, bad address).
        case cannotListen
        /// The static files folder is missing or not a directory.
        case badPublicDirectory
        /// The libwebsockets context could not be created.
        case contextCreationFailed
        /// A URL given to `connect` is not ws://host[:port][/path][?query].
        case malformedURL
        /// The object is not running (not started yet, or shut down).
        case notRunning
        /// `start()` was called twice.
        case alreadyStarted
    }
    /// The kind of failure.
    public let kind: Kind
    /// A human-readable explanation including the values involved.
    public let message: String
    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    /// The message.
    public var description: String { message }
}
