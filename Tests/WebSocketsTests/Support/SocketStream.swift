import Foundation
import Glibc

/// Buffered reads and whole writes on a connected TCP socket, for tests that speak raw bytes
/// (`RawSocket` as a client, `ScriptedServer` as a server). It does not own the descriptor.
final class SocketStream {
    let fd: Int32
    private var pending: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads more bytes; false on EOF, error or timeout.
    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending.append(contentsOf: buffer[..<n])
        return true
    }

    /// Everything until the peer closes (or the timeout).
    func readToEnd() -> [UInt8] {
        while fill() {}
        defer { pending.removeAll() }
        return pending
    }

    /// Reads up to and including "\r\n\r\n"; nil on EOF first.
    func readHTTPHead() -> String? {
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

    /// Reads one WebSocket frame: its first header byte (FIN, RSV, opcode), whether it was
    /// masked, and the payload (unmasked if it was).
    func readFrame() -> (first: UInt8, masked: Bool, payload: [UInt8])? {
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
        return (head[0], masked, masked ? payload.enumerated().map { $0.element ^ mask[$0.offset & 3] } : payload)
    }
}
