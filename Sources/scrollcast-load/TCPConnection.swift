#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP connection with timeouts, used before and after the run: to tell a missing
/// server apart from a refusing one, and to scrape `/metrics`. The run itself never uses it.
final class TCPConnection {
    /// Why a connection or exchange failed, in words for the user.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// True when nothing listens on the port (ECONNREFUSED).
        var refused = false
    }

    private let fd: Int32

    /// Connects to `host:port`, trying each address the name resolves to.
    init(host: String, port: Int, timeoutSeconds: Int = 5) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve host \"\(host)\": \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = 0
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if socketFD < 0 { lastError = errno; continue }
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                fd = socketFD
                return
            }
            lastError = errno
            close(socketFD)
        }
        throw Failure(description: String(cString: strerror(lastError)), refused: lastError == ECONNREFUSED)
    }

    deinit { close(fd) }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Reads until the peer closes, refusing to hold more than `limit` bytes.
    func readToEnd(limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return result }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : String(cString: strerror(errno))
                throw Failure(description: "read failed: \(reason)")
            }
            result.append(contentsOf: chunk[0..<count])
            if result.count > limit { throw Failure(description: "response larger than \(limit) bytes") }
        }
    }
}
