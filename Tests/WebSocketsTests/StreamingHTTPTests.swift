import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import WebSockets

/// Streamed HTTP responses (`HTTPResponseStream`): produced on another thread, sent chunked as
/// the socket takes them, the producer held back by a reader that does not read.
@Suite("Streamed HTTP responses")
struct StreamingHTTPTests {
    /// A producer on its own thread writing `pieces` pieces of `pieceBytes`, counting them.
    final class Producer: Sendable {
        let written = Atomic(0)
        let stopped = DispatchSemaphore(value: 0)
        let stream = Mutex<HTTPResponseStream?>(nil)

        func start(_ stream: HTTPResponseStream, pieces: Int, pieceBytes: Int) {
            self.stream.withLock { $0 = stream }
            Thread { [self] in
                stream.begin(status: 200, contentType: "text/plain")
                for index in 0..<pieces {
                    guard stream.write([UInt8](repeating: UInt8(ascii: "a") + UInt8(index % 26), count: pieceBytes)) else { break }
                    written.add(1, ordering: .relaxed)
                }
                stream.finish()
                stopped.signal()
            }.start()
        }
    }

    @Test func aStreamedBodyArrivesWholeAndChunked() throws {
        let producer = Producer()
        let h = try Harness(setup: { $0.streamRoutes["/stream"] = { producer.start($0, pieces: 40, pieceBytes: 10_000) } })
        defer { h.stop() }
        let response = try httpGet(port: h.port, "/stream")
        #expect(response.status == 200)
        #expect(response.headers["transfer-encoding"] == "chunked")
        let (body, complete) = dechunk(response.body)
        #expect(complete, "ends with the final chunk")
        // Spelled out with its types: as one closure inside `#expect` it took the type checker 12 s.
        let expected: [UInt8] = (0..<40).flatMap { (piece: Int) -> [UInt8] in
            [UInt8](repeating: UInt8(ascii: "a") + UInt8(piece % 26), count: 10_000)
        }
        #expect(body == expected)
    }

    @Test func aReaderThatStopsHoldsTheProducerBackAndLeavingLetsItGo() throws {
        let producer = Producer()
        let pieces = 400, pieceBytes = 64 * 1024  // 25 MiB: far more than socket buffers hold
        let h = try Harness(setup: { $0.streamRoutes["/stream"] = { producer.start($0, pieces: pieces, pieceBytes: pieceBytes) } })
        defer { h.stop() }
        var socket: RawSocket? = try RawSocket(port: h.port)
        socket?.send("GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(socket?.readHTTPHead()?.hasPrefix("HTTP/1.1 200") == true)
        try #require(waitUntil { producer.stream.withLock({ $0?.isProducerWaiting }) == true },
                     "the producer comes to wait for the reader")
        #expect(producer.written.load(ordering: .relaxed) < pieces, "it could not write the whole body ahead of the reader")
        #expect(producer.stream.withLock { $0!.peakBufferedBytes } <= WebSocketServer.httpStreamBufferLimit + pieceBytes)
        socket = nil  // the reader goes away without reading on
        #expect(producer.stopped.wait(timeout: .now() + 10) == .success, "the producer was let go")
        #expect(producer.written.load(ordering: .relaxed) < pieces, "it stopped when the reader left")
    }
}

/// A chunked body's bytes, and whether it ended with its final (zero) chunk.
private func dechunk(_ raw: [UInt8]) -> ([UInt8], Bool) {
    var body: [UInt8] = [], rest = raw[...]
    while let lineEnd = rest.firstRange(of: [13, 10]) {
        guard let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else { break }
        if size == 0 { return (body, true) }
        let start = lineEnd.upperBound
        guard rest.distance(from: start, to: rest.endIndex) >= size + 2 else { break }
        body += rest[start..<rest.index(start, offsetBy: size)]
        rest = rest[rest.index(start, offsetBy: size + 2)...]
    }
    return (body, false)
}
