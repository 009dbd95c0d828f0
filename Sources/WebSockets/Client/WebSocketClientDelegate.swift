/// Receives a client's events. Every call arrives on the client's service thread, one at a time.
public protocol WebSocketClientDelegate: AnyObject, Sendable {
    /// The handshake completed; the connection may be sent to.
    func client(_ client: WebSocketClient, didConnect connection: ConnectionID)
    /// The connection never opened (refused, handshake rejected, timeout). No didClose follows.
    func client(_ client: WebSocketClient, didFailToConnect connection: ConnectionID, reason: String)
    /// A complete message arrived.
    func client(_ client: WebSocketClient, didReceive message: InboundMessage, from connection: ConnectionID)
    /// A complete text message arrived, as its UTF-8 bytes (already validated), readable only during
    /// the call. The default makes a `String` and calls `didReceive`; a delegate that reads many
    /// messages (a load generator) can implement this to skip that copy.
    func client(_ client: WebSocketClient, didReceiveText utf8: UnsafeRawBufferPointer, from connection: ConnectionID)
    /// A complete binary message arrived, readable only during the call. The default copies it
    /// and calls `didReceive` with `.binary`; a delegate that reads many messages can skip the copy.
    func client(_ client: WebSocketClient, didReceiveBinary bytes: UnsafeRawBufferPointer, from connection: ConnectionID)
    /// An open connection is gone. `code` is the close code received or sent, nil if it just dropped.
    func client(_ client: WebSocketClient, didClose connection: ConnectionID, code: CloseCode?, reason: String)
}

extension WebSocketClientDelegate {
    /// Makes a `String` of the bytes and hands it to `didReceive` as `.text`.
    public func client(_ client: WebSocketClient, didReceiveText utf8: UnsafeRawBufferPointer, from connection: ConnectionID) {
        self.client(client, didReceive: .text(String(decoding: utf8, as: UTF8.self)), from: connection)
    }

    /// Copies the bytes and hands them to `didReceive` as `.binary`.
    public func client(_ client: WebSocketClient, didReceiveBinary bytes: UnsafeRawBufferPointer, from connection: ConnectionID) {
        self.client(client, didReceive: .binary(Array(bytes)), from: connection)
    }
}
