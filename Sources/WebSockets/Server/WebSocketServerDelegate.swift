/// Receives a server's events. Every call arrives on the server's service thread, one at a time.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// Last say on an upgrade that passed the path, origin and subprotocol checks. Default: `.accept`.
    func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision
    /// A WebSocket connection is open and may be sent to.
    func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest)
    /// A complete message arrived (fragments already reassembled, text already validated).
    func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID)
    /// The connection is gone. `code` is the close code sent or received, nil if the socket just dropped.
    func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String)
    /// Dynamic HTTP routes (e.g. /metrics, /healthz), asked before static files; nil falls through
    /// to static files and then 404. Default: nil.
    func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse?
}

extension WebSocketServerDelegate {
    /// Accepts every upgrade that passed the built-in checks.
    public func server(_ server: WebSocketServer, shouldAccept request: UpgradeRequest) -> UpgradeDecision {
        .accept
    }
    /// No dynamic routes.
    public func server(_ server: WebSocketServer, respondTo method: String, path: String, query: String) -> HTTPResponse? {
        nil
    }
}
