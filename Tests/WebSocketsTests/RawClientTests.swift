import Foundation
import Testing
@testable import WebSockets

@Suite("WebSocketClient's own framing against a scripted server")
struct RawClientTests {
    static func connectedClient(_ server: ScriptedServer) throws -> (WebSocketClient, TestClientDelegate, ConnectionID, String?) {
        let delegate = TestClientDelegate()
        let client = WebSocketClient(delegate: delegate, maxMessageBytes: TestProtocol.clientMaxMessageBytes)
        try client.start()
        let id = try client.connect(url: "ws://127.0.0.1:\(server.port)/ws?room=r1", subprotocol: TestProtocol.subprotocol, origin: "http://o.test")
        let head = server.acceptAndUpgrade()
        return (client, delegate, id, head)
    }

    @Test func requestPingPongAndServerInitiatedClose() throws {
        let server = try ScriptedServer()
        let (client, delegate, id, head) = try Self.connectedClient(server)
        defer { client.shutdown() }
        #expect(head?.hasPrefix("GET /ws?room=r1 HTTP/1.1\r\n") == true)
        #expect(head?.contains("\r\nOrigin: http://o.test\r\n") == true)
        #expect(head?.contains("\r\nSec-WebSocket-Protocol: \(TestProtocol.subprotocol)\r\n") == true)
        #expect(delegate.waitForOutcome(id) == true)

        server.send(serverFrame(0x9, [1, 2, 3]) + serverFrame(0x1, Array("hi".utf8)))
        let pong = server.readClientFrame()
        #expect(pong?.opcode == 0xA)
        #expect(pong?.masked == true)
        #expect(pong?.payload == [1, 2, 3])
        #expect(delegate.waitForMessages(id, count: 1) == [.text("hi")])

        client.send(OutboundMessage(text: String(repeating: "z", count: 70_000)), on: id)
        let big = server.readClientFrame()
        #expect(big?.opcode == 0x1)
        #expect(big?.masked == true)
        #expect(big?.payload == Array(String(repeating: "z", count: 70_000).utf8))

        // 4001 is outside what lws's own client parser let through.
        server.send(serverFrame(0x8, [0x0F, 0xA1] + Array("bye".utf8)))
        let echo = server.readClientFrame()
        #expect(echo?.opcode == 0x8)
        #expect(echo?.masked == true)
        #expect(echo?.payload == [0x0F, 0xA1])
        server.hangUp()
        let close = delegate.waitForClose(id)
        #expect(close?.0 == CloseCode(rawValue: 4001))
        #expect(close?.1 == "bye")
    }

    @Test func aProtocolErrorFromTheServerIsClosedWith1002() throws {
        let server = try ScriptedServer()
        let (client, delegate, id, _) = try Self.connectedClient(server)
        defer { client.shutdown() }
        #expect(delegate.waitForOutcome(id) == true)
        server.send(serverFrame(0x1, Array("x".utf8), rsv: 4))
        let close = server.readClientFrame()
        #expect(close?.opcode == 0x8)
        #expect(close.map { Array($0.payload.prefix(2)) } == [0x03, 0xEA])
        server.send(serverFrame(0x8, [0x03, 0xEA]))
        let reported = delegate.waitForClose(id)
        #expect(reported?.0 == .protocolError)
        #expect(reported?.1.contains("reserved bits") == true)
    }

    @Test func clientCloseWaitsForTheServersClose() throws {
        let server = try ScriptedServer()
        let (client, delegate, id, _) = try Self.connectedClient(server)
        defer { client.shutdown() }
        #expect(delegate.waitForOutcome(id) == true)
        client.send(OutboundMessage(text: "last"), on: id)
        client.close(id, code: .normal, reason: "done")
        #expect(server.readClientFrame()?.payload == Array("last".utf8))
        let close = server.readClientFrame()
        #expect(close?.opcode == 0x8)
        #expect(close?.payload == [0x03, 0xE8] + Array("done".utf8))
        server.send(serverFrame(0x8, [0x03, 0xE8]))
        let reported = delegate.waitForClose(id)
        #expect(reported?.0 == .normal)
        #expect(reported?.1 == "done")
    }

    @Test func aRefusedUpgradeIsAConnectFailureWithTheStatus() throws {
        let server = try ScriptedServer()
        let delegate = TestClientDelegate()
        let client = WebSocketClient(delegate: delegate, maxMessageBytes: TestProtocol.clientMaxMessageBytes)
        try client.start()
        defer { client.shutdown() }
        let id = try client.connect(url: "ws://127.0.0.1:\(server.port)/ws", subprotocol: TestProtocol.subprotocol)
        #expect(server.refuse(status: "403 Forbidden"))
        let reason = delegate.events.wait { events -> String? in
            for case .failed(id, let why) in events { return why }
            return nil
        }
        #expect(reason?.contains("403") == true, "\(reason ?? "no failure")")
    }

    @Test func tryAgainLaterReachesTheClientUnchanged() throws {
        let h = try Harness(setup: { delegate in
            delegate.onOpen = { server, id in server.close(id, code: .tryAgainLater, reason: "room full") }
        })
        defer { h.stop() }
        let id = try h.connect()
        let close = h.clientDelegate.waitForClose(id)
        #expect(close?.0 == .tryAgainLater)
        #expect(close?.1 == "room full")
    }
}
