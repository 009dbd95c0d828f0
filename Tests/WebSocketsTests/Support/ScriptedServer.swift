import Foundation
import Glibc
@testable import WebSockets

/// A one-connection WebSocket "server" the test drives byte by byte, to send frames a real server
/// never would and to read exactly what the client writes.
final class ScriptedServer {
    private let listener: Int32
    var listenerSocket: Int32 { listener }
    let port: Int
    var peer: Int32 = -1 {
        didSet { stream = SocketStream(fd: peer) }
    }
    private var stream = SocketStream(fd: -1)

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, listen(listener, 4) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        if peer >= 0 { Glibc.close(peer) }
        Glibc.close(listener)
    }

    /// Accepts the client, reads its request and answers 101 with a correct accept; the request head.
    func acceptAndUpgrade(subprotocol: String? = TestProtocol.subprotocol) -> String? {
        peer = accept(listener, nil, nil)
        guard peer >= 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let head = stream.readHTTPHead() else { return nil }
        let keyLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
        let key = keyLine.map { String($0.dropFirst("sec-websocket-key:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
        var response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        response += "Sec-WebSocket-Accept: \(ClientHandshake.expectedAccept(forKey: key))\r\n"
        if let subprotocol { response += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        send(Array((response + "\r\n").utf8))
        return head
    }

    func send(_ bytes: [UInt8]) { stream.send(bytes) }

    /// Closes the TCP connection.
    func hangUp() {
        if peer >= 0 { Glibc.close(peer) }
        peer = -1
    }

    /// Reads one client frame, says whether it was masked, and unmasks it.
    func readClientFrame() -> (fin: Bool, opcode: UInt8, masked: Bool, payload: [UInt8])? {
        guard let frame = stream.readFrame() else { return nil }
        return (frame.first & 0x80 != 0, frame.first & 0x0f, frame.masked, frame.payload)
    }
}

extension ScriptedServer {
    /// Accepts the client, reads its request and answers with `status` and a short body; false if no client came.
    func refuse(status: String) -> Bool {
        peer = accept(listenerSocket, nil, nil)
        guard peer >= 0 else { return false }
        send(Array("HTTP/1.1 \(status)\r\ncontent-length: 2\r\n\r\nno".utf8))
        return true
    }
}
