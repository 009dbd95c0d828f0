import Foundation
import Testing
@testable import WebSockets

/// permessage-deflate stays off unless asked for: libwebsockets 4.1.6's inflater aborts the process
/// on compressed input a peer chooses (a message inflating to 16 KiB + 16 bytes of one letter did).
@Suite("permessage-deflate is off by default")
struct DeflateSafetyTests {
    @Test func theServerDoesNotAcceptTheDeflateOfferByDefault() throws {
        let h = try Harness()
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        let head = try #require(socket.handshake(extensions: "permessage-deflate; client_max_window_bits"))
        #expect(head.hasPrefix("HTTP/1.1 101"))
        #expect(!head.lowercased().contains("sec-websocket-extensions"))
    }

    /// With deflate negotiated this exact message aborted the test process inside lws.
    @Test func theMessageThatCrashedTheInflaterNowEchoes() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 64 * 1024 }, setup: { $0.echo = true })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        let text = String(repeating: "y", count: 16 * 1024 + 16)
        h.client.send(OutboundMessage(text: text), on: id)
        #expect(h.clientDelegate.waitForMessages(id, count: 1) == [.text(text)])
    }

    @Test func aMessageOverTheCapStillClosesWith1009() throws {
        let h = try Harness(configure: { $0.maxMessageBytes = 16 * 1024 })
        defer { h.stop() }
        let id = try h.connect()
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        h.client.send(OutboundMessage(text: String(repeating: "y", count: 16 * 1024 + 16)), on: id)
        let close = h.clientDelegate.waitForClose(id)
        #expect(close?.0 == .messageTooBig)
        #expect(close?.1 == "message too big")
    }
}
