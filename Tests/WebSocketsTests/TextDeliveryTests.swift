import Foundation
import Testing
import TestSupport
@testable import WebSockets

/// How a server hands text to its delegate: as bytes to `didReceiveText`, and through its default
/// as a `String` to `didReceive`.
@Suite("Server text delivery: bytes in place, String by default")
struct TextDeliveryTests {
    /// Implements `didReceiveText`, so text must never reach `didReceive`.
    final class BytesDelegate: WebSocketServerDelegate, @unchecked Sendable {
        enum Event: Sendable, Equatable {
            case text([UInt8])
            case message(InboundMessage)
        }
        let events = EventCollector<Event>()

        func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?) {}
        func server(_ server: WebSocketServer, didReceiveText utf8: UnsafeRawBufferPointer, from connection: ConnectionID) {
            events.append(.text(Array(utf8)))
        }
        func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {
            events.append(.message(message))
        }
        func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String) {}
    }

    /// Text messages whose characters straddle fragment borders, sent as those fragments.
    static let split: [[[UInt8]]] = {
        let long = Array(String(repeating: "aé✓𝄞", count: 30).utf8)
        let sevens = stride(from: 0, to: long.count, by: 7).map { Array(long[$0..<min($0 + 7, long.count)]) }
        // "x𝄞y" with the 4-byte character cut after its first, second and third byte.
        let clef: [[UInt8]] = [[0x78, 0xF0], [0x9D], [0x84], [0x9E, 0x79]]
        return [sevens, clef, [Array("héllo".utf8)], [[]]]
    }()

    static func send(_ messages: [[[UInt8]]], on socket: RawSocket) {
        for fragments in messages {
            for (index, piece) in fragments.enumerated() {
                socket.send(RawSocket.frame(fin: index == fragments.count - 1, opcode: index == 0 ? 1 : 0, payload: piece))
            }
        }
    }

    @Test func aDelegateImplementingDidReceiveTextGetsTheExactBytes() throws {
        let delegate = BytesDelegate()
        let server = WebSocketServer(configuration: TestProtocol.serverConfiguration(), delegate: delegate)
        let port = try server.start()
        defer { server.shutdown() }
        let socket = try RawSocket(port: port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        Self.send(Self.split, on: socket)
        socket.send(RawSocket.frame(fin: true, opcode: 2, payload: [1, 2, 3]))
        let expected = Self.split.map { BytesDelegate.Event.text($0.flatMap { $0 }) } + [.message(.binary([1, 2, 3]))]
        let events = delegate.events.wait { $0.count >= expected.count ? $0 : nil }
        #expect(events == expected)
        #expect(server.stats.messagesReceived == expected.count)
        #expect(server.stats.bytesReceived == Self.split.joined().joined().count + 3)
    }

    @Test func theDefaultDidReceiveTextStillReachesDidReceive() throws {
        let h = try Harness()
        defer { h.stop() }
        let socket = try RawSocket(port: h.port)
        #expect(socket.handshake()?.hasPrefix("HTTP/1.1 101") == true)
        Self.send(Self.split, on: socket)
        let expected = Self.split.map { InboundMessage.text(String(decoding: $0.joined(), as: UTF8.self)) }
        let received = h.serverDelegate.events.wait { events -> [InboundMessage]? in
            let messages = events.compactMap { event -> InboundMessage? in
                if case .received(_, let message) = event { message } else { nil }
            }
            return messages.count >= expected.count ? messages : nil
        }
        #expect(received == expected)
    }
}
