import Foundation
import Testing
@testable import WebSockets

@Suite("A first message carried in the upgrade URL")
struct UpgradeMessageTests {
    private static func arguments(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    @Test func readsTheValueAfterTheFirstEqualsSign() {
        let reading = UpgradeMessage.read(Self.arguments(["a=1", "join={\"x\":\"a=b\"}"]), parameter: "join", maxBytes: 100)
        #expect(reading == .message(Array("{\"x\":\"a=b\"}".utf8)))
        #expect(UpgradeMessage.read(Self.arguments(["joined=1", "join"]), parameter: "join", maxBytes: 100) == .absent)
        #expect(UpgradeMessage.read([], parameter: "join", maxBytes: 100) == .absent)
        #expect(UpgradeMessage.read(Self.arguments(["join="]), parameter: "join", maxBytes: 100) == .message([]))
    }

    @Test func refusesTwoAndTooLong() {
        #expect(UpgradeMessage.read(Self.arguments(["join=1", "join=2"]), parameter: "join", maxBytes: 100)
            == .refused(status: 400, message: "more than one 'join' in the URL"))
        #expect(UpgradeMessage.read(Self.arguments(["join=" + String(repeating: "x", count: 101)]), parameter: "join", maxBytes: 100)
            == .refused(status: 414, message: "'join' in the URL is 101 bytes; the limit is 100"))
        #expect(UpgradeMessage.read(Self.arguments(["join=" + String(repeating: "x", count: 100)]), parameter: "join", maxBytes: 100)
            == .message(Array(repeating: UInt8(ascii: "x"), count: 100)))
    }

    private static func harness() throws -> Harness {
        try Harness(configure: { $0.firstMessageParameter = "m"; $0.maxFirstMessageParameterBytes = 64 }, setup: { $0.echo = true })
    }

    @Test func theDelegateGetsItFirstAndDecoded() throws {
        let h = try Self.harness()
        defer { h.stop() }
        // Percent-encoded &, ;, = and + stay in the value; an unencoded + is a space; é is two bytes.
        let id = try h.client.connect(url: "\(h.url)?x=1&m=%7B%22a%22%3A%22b%26c%3Bd%3De%2Bf+g%C3%A9%22%7D&y=2",
                                      subprotocol: TestProtocol.subprotocol)
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        // Nothing was sent by the client: the echo answers the URL's message.
        let echoed = h.clientDelegate.waitForMessages(id, count: 1)
        #expect(echoed == [.text("{\"a\":\"b&c;d=e+f gé\"}")])
        h.client.send(OutboundMessage(text: "second"), on: id)
        #expect(h.clientDelegate.waitForMessages(id, count: 2)?.last == .text("second"))
        #expect(h.server.stats.messagesReceived == 2)
    }

    @Test func withoutTheParameterNothingIsDelivered() throws {
        let h = try Self.harness()
        defer { h.stop() }
        let id = try h.client.connect(url: "\(h.url)?other=1", subprotocol: TestProtocol.subprotocol)
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        h.client.send(OutboundMessage(text: "only"), on: id)
        #expect(h.clientDelegate.waitForMessages(id, count: 1) == [.text("only")])
    }

    @Test func refusalsAreHTTPStatusesOrACloseCode() throws {
        let h = try Self.harness()
        defer { h.stop() }
        for (query, status, body) in [
            ("m=\(String(repeating: "x", count: 65))", " 414 ", "'m' in the URL is 65 bytes; the limit is 64\n"),
            ("m=1&m=2", " 400 ", "more than one 'm' in the URL\n"),
        ] {
            let socket = try RawSocket(port: h.port)
            #expect(socket.handshake(path: "/ws?\(query)")?.contains(status) == true, "\(query)")
            #expect(String(decoding: socket.readToEnd(), as: UTF8.self) == body)
        }
        #expect(h.serverDelegate.openedIDs().isEmpty)
        let bad = try h.client.connect(url: "\(h.url)?m=%FF", subprotocol: TestProtocol.subprotocol)
        let close = h.clientDelegate.waitForClose(bad)
        #expect(close?.0 == .invalidPayload)
        #expect(close?.1 == "invalid UTF-8 in the message in the URL")
        #expect(h.clientDelegate.messages(bad).isEmpty)
    }
}
