import Foundation
import Testing
@testable import WebSockets

/// One server speaking two versions of an application protocol.
@Suite("Several subprotocols: negotiation and the one each connection chose")
struct SubprotocolTests {
    static let versions = ["chat.v1", "chat.v2"]

    static func twoVersionHarness(acceptsMissing: Bool = false) throws -> Harness {
        try Harness(configure: {
            $0.subprotocols = versions
            $0.acceptsMissingSubprotocol = acceptsMissing
        })
    }

    /// Reads the Sec-WebSocket-Protocol value from a response head; nil if there is none.
    static func agreed(_ head: String?) -> String? {
        head?.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-protocol:") }
            .map { $0.dropFirst("sec-websocket-protocol:".count).trimmingCharacters(in: .whitespaces) }
    }

    @Test func eitherAcceptedSubprotocolOpensAndIsReported() throws {
        let h = try Self.twoVersionHarness()
        defer { h.stop() }
        // WebSocketClient itself fails the handshake unless the response names what it offered.
        let v2 = try h.connect(subprotocol: "chat.v2")
        #expect(h.clientDelegate.waitForOutcome(v2) == true)
        #expect(h.serverDelegate.waitForOpenedSubprotocols(count: 1) == ["chat.v2"])
        let v1 = try h.connect(subprotocol: "chat.v1")
        #expect(h.clientDelegate.waitForOutcome(v1) == true)
        #expect(h.serverDelegate.waitForOpenedSubprotocols(count: 2) == ["chat.v2", "chat.v1"])
        for version in Self.versions {
            let socket = try RawSocket(port: h.port)
            let head = socket.handshake(subprotocol: version)
            #expect(head?.hasPrefix("HTTP/1.1 101") == true)
            #expect(Self.agreed(head) == version)
        }
        #expect(h.serverDelegate.waitForOpenedSubprotocols(count: 4) == ["chat.v2", "chat.v1", "chat.v1", "chat.v2"])
    }

    /// libwebsockets walks the client's list and takes the first name it knows: the client's
    /// order decides, not the order of `configuration.subprotocols`.
    @Test func theClientsFirstAcceptedOfferWins() throws {
        let h = try Self.twoVersionHarness()
        defer { h.stop() }
        let offers = ["chat.v2, chat.v1", "chat.v1, chat.v2", "chat.v9, chat.v2, chat.v1", "chat.v2,chat.v1"]
        let expected = ["chat.v2", "chat.v1", "chat.v2", "chat.v2"]
        for (offer, winner) in zip(offers, expected) {
            let socket = try RawSocket(port: h.port)
            let head = socket.handshake(subprotocol: offer)
            #expect(head?.hasPrefix("HTTP/1.1 101") == true, "offer \(offer)")
            #expect(Self.agreed(head) == winner, "offer \(offer)")
        }
        #expect(h.serverDelegate.waitForOpenedSubprotocols(count: offers.count) == expected)
    }

    @Test func aClientOfferingNeitherIsRefusedWithTheList() throws {
        let h = try Self.twoVersionHarness()
        defer { h.stop() }
        for offer in ["chat.v3", "chat.v3, v1", nil] {
            let socket = try RawSocket(port: h.port)
            let head = socket.handshake(subprotocol: offer)
            #expect(head?.hasPrefix("HTTP/1.1 400 Bad Request\r\n") == true, "offer \(offer ?? "none")")
            let body = String(decoding: socket.readToEnd(), as: UTF8.self)
            #expect(body == "one of the subprotocols chat.v1, chat.v2 required\n", "offer \(offer ?? "none"): \(body)")
        }
        let id = try h.connect(subprotocol: "chat.v3")
        #expect(h.clientDelegate.waitForOutcome(id) == false)
        #expect(h.serverDelegate.openedIDs().isEmpty)
        #expect(h.server.stats.upgradesRefused == 4)
    }

    /// libwebsockets itself would drop these after the upgrade was accepted, without a response.
    @Test func anOfferTooLongForLibWebSocketsIsRefusedWithAnAnswer() throws {
        let h = try Self.twoVersionHarness()
        defer { h.stop() }
        let manyNames = (0..<12).map { "unknown.protocol.\($0)" }.joined(separator: ", ") + ", chat.v2"
        let longName = String(repeating: "x", count: 63) + ", chat.v2"
        for offer in [manyNames, longName] {
            let socket = try RawSocket(port: h.port)
            #expect(socket.handshake(subprotocol: offer)?.contains(" 400 ") == true, "offer \(offer)")
            let body = String(decoding: socket.readToEnd(), as: UTF8.self)
            #expect(body == "Sec-WebSocket-Protocol list too long\n", "offer \(offer): \(body)")
        }
        // Just inside both limits still works.
        let atLimit = String(repeating: "y", count: 62) + ", " + String(repeating: "z", count: 53) + ", chat.v2"
        #expect(atLimit.utf8.count == 126)
        let socket = try RawSocket(port: h.port)
        let head = socket.handshake(subprotocol: atLimit)
        #expect(head?.hasPrefix("HTTP/1.1 101") == true)
        #expect(Self.agreed(head) == "chat.v2")
    }

    @Test func noOfferMeansNoSubprotocolWhereThatIsAllowed() throws {
        let h = try Self.twoVersionHarness(acceptsMissing: true)
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        let head = socket.handshake(subprotocol: nil)
        #expect(head?.hasPrefix("HTTP/1.1 101") == true)
        #expect(Self.agreed(head) == nil)
        let id = try h.connect(subprotocol: nil)
        #expect(h.clientDelegate.waitForOutcome(id) == true)
        #expect(h.serverDelegate.waitForOpenedSubprotocols(count: 2) == [nil, nil])
    }

    /// An endpoint that speaks no subprotocol (a conformance echo) takes clients that offer none
    /// and refuses any offer, since it could not answer one.
    @Test func anEndpointWithoutSubprotocolsRefusesEveryOffer() throws {
        let h = try Harness(configure: {
            $0.subprotocols = []
            $0.acceptsMissingSubprotocol = true
        })
        defer { h.stop() }
        let none = try h.connect(subprotocol: nil)
        #expect(h.clientDelegate.waitForOutcome(none) == true)
        #expect(h.serverDelegate.waitForOpenedSubprotocols(count: 1) == [nil])
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake(subprotocol: "scws-none")?.contains(" 400 ") == true)
        let body = String(decoding: socket.readToEnd(), as: UTF8.self)
        #expect(body == "this endpoint accepts no subprotocol\n", "\(body)")
    }
}
