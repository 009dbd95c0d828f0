/// Receives a server's events. Every call arrives on the server's service thread, one at a time.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// Last say on an upgrade that passed the path, origin and subprotocol checks. Default: `.accept`.
    func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision
    /// A WebSocket connection is open and may be sent to. `subprotocol` is the one agreed in the
    /// handshake (the server's answer in Sec-WebSocket-Protocol), so a server that accepts several
    /// versions knows which one this connection speaks; nil when the client offered none (allowed
    /// only with `acceptsMissingSubprotocol`). When the client offers several accepted names, the
    /// first in the client's own list wins (libwebsockets' rule), whatever the order of
    /// `configuration.subprotocols`: a client lists the version it prefers first.
    func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?)
    /// A complete message arrived (fragments already reassembled, text already validated). Text
    /// comes here only through the default `didReceiveText`.
    func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID)
    /// A complete text message arrived, as its UTF-8 bytes (fragments reassembled, already
    /// validated), readable only during the call. The default makes a `String` and calls
    /// `didReceive`; a delegate that decodes the bytes itself (a JSON parser) implements this so
    /// no `String` is built only to be turned back into bytes.
    func server(_ server: WebSocketServer, didReceiveText utf8: UnsafeRawBufferPointer, from connection: ConnectionID)
    /// The connection is gone. `code` is the close code sent or received, nil if the socket just dropped.
    func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String)
    /// Dynamic HTTP routes (e.g. /metrics, /healthz), asked before static files; nil falls through
    /// to static files and then 404. A 200 with an `etag` header (`HTTPResponse.entityTag`) is
    /// answered `304` when the request's `If-None-Match` names it. Default: nil.
    func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse?
    /// Dynamic routes answered later and in pieces, asked before `respondTo`: a function the
    /// server calls at once with the response's `HTTPResponseStream`, to hand it to whatever
    /// produces the response (on another thread); nil: not such a route. `authorization` is the
    /// request's Authorization header, if any. Default: nil.
    func server(_ server: WebSocketServer, streamResponseTo method: String, path: String, query: String,
                authorization: String?) -> ((HTTPResponseStream) -> Void)?
    /// The most bytes of body a request to `path` with `method` may have, for a route that reads
    /// one (e.g. an upload); nil: not such a route. Default: nil.
    func server(_ server: WebSocketServer, maxBodyBytesFor method: String, path: String) -> Int?
    /// Answers a request whose body was read whole (a route `maxBodyBytesFor` named) on
    /// `stream`, at once or later from another thread (checking an upload takes a while).
    /// Default: 404.
    func server(_ server: WebSocketServer, respondTo request: HTTPRequestWithBody, on stream: HTTPResponseStream)
}

extension WebSocketServerDelegate {
    /// No route reads a body.
    public func server(_ server: WebSocketServer, maxBodyBytesFor method: String, path: String) -> Int? { nil }
    /// Not found.
    public func server(_ server: WebSocketServer, respondTo request: HTTPRequestWithBody, on stream: HTTPResponseStream) {
        stream.begin(status: 404, contentType: "text/plain; charset=utf-8")
        _ = stream.write(Array("not found\n".utf8))
        stream.finish()
    }
    /// Accepts every upgrade that passed the built-in checks.
    public func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision {
        .accept
    }
    /// Makes a `String` of the bytes and hands it to `didReceive` as `.text`.
    public func server(_ server: WebSocketServer, didReceiveText utf8: UnsafeRawBufferPointer, from connection: ConnectionID) {
        self.server(server, didReceive: .text(String(decoding: utf8, as: UTF8.self)), from: connection)
    }
    /// No dynamic routes.
    public func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse? {
        nil
    }
    /// No streamed routes.
    public func server(_ server: WebSocketServer, streamResponseTo method: String, path: String, query: String,
                       authorization: String?) -> ((HTTPResponseStream) -> Void)? {
        nil
    }
}
