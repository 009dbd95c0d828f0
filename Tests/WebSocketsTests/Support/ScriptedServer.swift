import Foundation
import Glibc
@testable import WebSockets

/// A one-connection WebSocket "server" the test drives byte by byte, to send frames a real server
/// never would and to read exactly what the client writes.
final class ScriptedServer {
    private let listener: Int32
    var listenerSocket: Int32 { listener }
    let port: Int
    var peer: Int32 = -1
    private var pending: [UInt8] = []

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
    func acceptAndUpgrade(subprotocol: String? = "scrollcast.v1") -> String? {
        peer = accept(listener, nil, nil)
        guard peer >= 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let head = readHTTPHead() else { return nil }
        let keyLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
        let key = keyLine.map { String($0.dropFirst("sec-websocket-key:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
        var response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        response += "Sec-WebSocket-Accept: \(ClientHandshake.expectedAccept(forKey: key))\r\n"
        if let subprotocol { response += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        send(Array((response + "\r\n").utf8))
        return head
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Closes the TCP connection.
    func hangUp() {
        if peer >= 0 { Glibc.close(peer) }
        peer = -1
    }

    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending.append(contentsOf: buffer[..<n])
        return true
    }

    private func readHTTPHead() -> String? {
        let marker: [UInt8] = [13, 10, 13, 10]
        while true {
            if let range = pending.firstRange(of: marker) {
                defer { pending.removeFirst(range.upperBound) }
                return String(decoding: pending[..<range.upperBound], as: UTF8.self)
            }
            guard fill() else { return nil }
        }
    }

    private func take(_ count: Int) -> [UInt8]? {
        while pending.count < count { guard fill() else { return nil } }
        defer { pending.removeFirst(count) }
        return Array(pending[..<count])
    }

    /// Reads one client frame, checks it is masked, and unmasks it.
    func readClientFrame() -> (fin: Bool, opcode: UInt8, masked: Bool, payload: [UInt8])? {
        guard let head = take(2) else { return nil }
        var length = Int(head[1] & 0x7f)
        if length == 126 {
            guard let ext = take(2) else { return nil }
            length = Int(ext[0]) << 8 | Int(ext[1])
        } else if length == 127 {
            guard let ext = take(8) else { return nil }
            length = ext.reduce(0) { $0 << 8 | Int($1) }
        }
        let masked = head[1] & 0x80 != 0
        let mask = masked ? (take(4) ?? [0, 0, 0, 0]) : [0, 0, 0, 0]
        guard let payload = take(length) else { return nil }
        return (head[0] & 0x80 != 0, head[0] & 0x0f, masked, payload.enumerated().map { $0.element ^ mask[$0.offset & 3] })
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
