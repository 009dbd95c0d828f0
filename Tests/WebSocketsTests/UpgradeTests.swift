import Foundation
import Testing
@testable import WebSockets

@Suite("Upgrade checks: subprotocol, origin, path, delegate")
struct UpgradeTests {
    @Test func missingSubprotocolIsRefused() throws {
        let h = try Harness()
        defer { h.stop() }
        let id = try h.connect(subprotocol: nil)
        #expect(h.clientDelegate.waitForOutcome(id) == false)
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake(subprotocol: nil)?.contains(" 400 ") == true)
        #expect(h.serverDelegate.openedIDs().isEmpty)
    }

    @Test func refusalNamesTheOneRequiredSubprotocol() throws {
        let h = try Harness()
        defer { h.stop() }
        for offered in [nil, "other.v2"] {
            let socket = try RawSocket(port: h.port)
            let head = socket.handshake(subprotocol: offered)
            // HTTP/1.1 (lws's own refusal says HTTP/1.0, which some clients cannot read), plain text.
            #expect(head?.hasPrefix("HTTP/1.1 400 Bad Request\r\n") == true, "offered \(offered ?? "nothing")")
            #expect(head?.lowercased().contains("content-type: text/plain; charset=utf-8") == true)
            let body = String(decoding: socket.readToEnd(), as: UTF8.self)
            #expect(body == "subprotocol \(TestProtocol.subprotocol) required\n", "offered \(offered ?? "nothing"): \(body)")
        }
    }

    @Test func wrongSubprotocolIsRefused() throws {
        let h = try Harness()
        defer { h.stop() }
        let id = try h.connect(subprotocol: "other.v2")
        #expect(h.clientDelegate.waitForOutcome(id) == false)
        #expect(h.serverDelegate.openedIDs().isEmpty)
    }

    @Test func missingSubprotocolAcceptedWhenConfigured() throws {
        let h = try Harness(configure: { $0.acceptsMissingSubprotocol = true })
        defer { h.stop() }
        let id = try h.connect(subprotocol: nil)
        #expect(h.clientDelegate.waitForOutcome(id) == true)
    }

    @Test func foreignOriginIsRefusedWith403() throws {
        let h = try Harness(configure: { $0.allowedOrigins = ["http://good.test:8080"] })
        defer { h.stop() }
        let bad = try h.connect(origin: "http://evil.test:8080")
        #expect(h.clientDelegate.waitForOutcome(bad) == false)
        let missing = try h.connect(origin: nil)
        #expect(h.clientDelegate.waitForOutcome(missing) == false)
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake(origin: "http://evil.test:8080")?.contains(" 403 ") == true)
        let good = try h.connect(origin: "http://good.test:8080")
        #expect(h.clientDelegate.waitForOutcome(good) == true)
        let opened = h.serverDelegate.events.wait { events -> Int? in
            let count = events.filter { if case .opened = $0 { true } else { false } }.count
            return count >= 1 ? count : nil
        }
        #expect(opened == 1)
    }

    @Test func wrongPathIsRefused() throws {
        let h = try Harness()
        defer { h.stop() }
        let id = try h.connect(path: "/elsewhere")
        #expect(h.clientDelegate.waitForOutcome(id) == false)
    }

    @Test func delegateCanReject() throws {
        let h = try Harness(setup: { delegate in
            delegate.decide = { $0.query.contains("deny") ? .reject(reason: "denied") : .accept }
        })
        defer { h.stop() }
        let denied = try h.client.connect(url: "ws://127.0.0.1:\(h.port)/ws?deny=1", subprotocol: TestProtocol.subprotocol)
        #expect(h.clientDelegate.waitForOutcome(denied) == false)
        let allowed = try h.client.connect(url: "ws://127.0.0.1:\(h.port)/ws?ok=1", subprotocol: TestProtocol.subprotocol)
        #expect(h.clientDelegate.waitForOutcome(allowed) == true)
    }
}
