import Foundation
import Glibc

/// A plain TCP connection to 127.0.0.1 for tests that need exact bytes on the wire.
final class RawSocket {
    let fd: Int32
    private let stream: SocketStream

    init(port: Int, timeoutSeconds: Int = 10) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 { Glibc.close(fd); throw POSIXError(.ECONNREFUSED) }
        self.fd = fd
        stream = SocketStream(fd: fd)
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) { stream.send(bytes) }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Everything until the peer closes (or the timeout).
    func readToEnd() -> [UInt8] { stream.readToEnd() }

    /// Reads up to and including "\r\n\r\n"; nil on EOF first.
    func readHTTPHead() -> String? { stream.readHTTPHead() }

    /// Reads one (unmasked, server-sent) frame: (fin, rsv1 = compressed, opcode, payload).
    func readFrame() -> (fin: Bool, rsv1: Bool, opcode: UInt8, payload: [UInt8])? {
        guard let frame = stream.readFrame() else { return nil }
        return (frame.first & 0x80 != 0, frame.first & 0x40 != 0, frame.first & 0x0f, frame.payload)
    }

    /// Performs a WebSocket handshake; returns the response head.
    func handshake(path: String = "/ws", subprotocol: String? = TestProtocol.subprotocol, origin: String? = nil,
                   extensions: String? = nil) -> String? {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let origin { request += "Origin: \(origin)\r\n" }
        if let extensions { request += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
        send(request + "\r\n")
        return readHTTPHead()
    }

    /// A masked client frame.
    static func frame(fin: Bool, opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            out.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            out.append(0x80 | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            out.append(0x80 | 127)
            out += (0..<8).reversed().map { (byte: Int) -> UInt8 in UInt8(truncatingIfNeeded: payload.count >> (byte * 8)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        out += mask
        out += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return out
    }
}

/// Sends a one-shot HTTP request and returns (status, headers lowercased, body).
func httpGet(port: Int, _ path: String, extraHeaders: String = "") throws -> (status: Int, headers: [String: String], body: [UInt8]) {
    let socket = try RawSocket(port: port)
    socket.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(extraHeaders)\r\n")
    let response = socket.readToEnd()
    guard let split = response.firstRange(of: [13, 10, 13, 10]) else { return (0, [:], response) }
    let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
    let lines = head.components(separatedBy: "\r\n")
    let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (status, headers, Array(response[split.upperBound...]))
}
