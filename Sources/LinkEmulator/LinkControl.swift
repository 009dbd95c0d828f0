#if canImport(Glibc)
import Glibc
#endif
import CLinkSystem

/// The emulator's control endpoint: a tiny HTTP/1.1 server on the loop's thread, one request
/// per connection. `POST /cut` cuts every proxied connection and answers `{"cut": N}`;
/// `GET /stats` answers the counters (LinkStats.json). Anything else gets 404 or 405.
struct LinkControl {
    enum Request { case cut, stats }

    /// A request head larger than this is refused (431) rather than buffered.
    static let headLimit = 8 * 1024

    private var buffers: [Int32: [UInt8]] = [:]

    mutating func accept(from listener: Int32, register: (Int32) -> Void) {
        while true {
            let fd = clink_accept_nonblocking(listener)
            if fd < 0 { return }
            buffers[fd] = []
            register(fd)
        }
    }

    /// Reads from a control client; once its request head is complete, answers and closes.
    mutating func readable(fd: Int32, answer: (Request) -> String) {
        guard var buffer = buffers[fd] else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == EAGAIN || errno == EINTR { return }
        guard count > 0 else { return finish(fd) }
        buffer.append(contentsOf: chunk[0..<count])
        guard let headEnd = Self.endOfHead(buffer) else {
            if buffer.count > Self.headLimit {
                reply(fd, status: "431 Request Header Fields Too Large", body: "{\"error\": \"request head over 8 KiB\"}")
                return finish(fd)
            }
            buffers[fd] = buffer
            return
        }
        let requestLine = String(decoding: buffer[..<headEnd], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        let method = parts.first.map(String.init) ?? ""
        let path = parts.count > 1 ? String(parts[1].split(separator: "?").first ?? "") : ""
        switch (method, path) {
        case ("POST", "/cut"): reply(fd, status: "200 OK", body: answer(.cut))
        case ("GET", "/stats"): reply(fd, status: "200 OK", body: answer(.stats))
        case (_, "/cut"), (_, "/stats"):
            reply(fd, status: "405 Method Not Allowed", body: "{\"error\": \"use POST /cut or GET /stats\"}")
        default: reply(fd, status: "404 Not Found", body: "{\"error\": \"unknown path; use POST /cut or GET /stats\"}")
        }
        finish(fd)
    }

    mutating func closeAll() {
        for fd in buffers.keys { close(fd) }
        buffers = [:]
    }

    private mutating func finish(_ fd: Int32) {
        buffers[fd] = nil
        close(fd)
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The answer is small, so one blocking-free send into an empty socket buffer takes it all.
    private func reply(_ fd: Int32, status: String, body: String) {
        let body = body + "\n"
        let text = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        var bytes = Array(text.utf8)
        _ = send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }
}
