import Foundation
import Glibc
import Testing
import TestSupport
@testable import WebSockets

@Suite("Start-up errors and client failures")
struct ServerSetupTests {
    final class Quiet: WebSocketServerDelegate {
        func server(_ server: WebSocketServer, didOpen connection: ConnectionID, request: UpgradeRequest, subprotocol: String?) {}
        func server(_ server: WebSocketServer, didReceive message: InboundMessage, from connection: ConnectionID) {}
        func server(_ server: WebSocketServer, didClose connection: ConnectionID, code: CloseCode?, reason: String) {}
    }

    @Test func portInUseThrowsAClearError() throws {
        var configuration = TestProtocol.serverConfiguration()
        let first = WebSocketServer(configuration: configuration, delegate: Quiet())
        let port = try first.start()
        defer { first.shutdown() }
        #expect(port > 0)
        configuration.port = port
        let second = WebSocketServer(configuration: configuration, delegate: Quiet())
        do {
            try second.start()
            Issue.record("second server bound a port already in use")
            second.shutdown()
        } catch let error as WebSocketError {
            #expect(error.kind == .cannotListen)
            #expect(error.description.contains("\(port)"))
        }
    }

    @Test func subprotocolSettingsNoClientCouldMeetThrow() {
        var nobody = TestProtocol.serverConfiguration()
        nobody.subprotocols = []
        var configurations = [nobody]
        for name in ["", "two words", "a,b", String(repeating: "x", count: 63)] {
            var configuration = TestProtocol.serverConfiguration()
            configuration.subprotocols = ["fine.v1", name]
            configurations.append(configuration)
        }
        for configuration in configurations {
            let server = WebSocketServer(configuration: configuration, delegate: Quiet())
            #expect(throws: WebSocketError.self, "\(configuration.subprotocols)") { try server.start() }
            server.shutdown()
        }
        var echoOnly = nobody
        echoOnly.acceptsMissingSubprotocol = true
        var longestName = TestProtocol.serverConfiguration()
        longestName.subprotocols = ["fine.v1", String(repeating: "x", count: 62)]
        for configuration in [echoOnly, longestName] {
            let server = WebSocketServer(configuration: configuration, delegate: Quiet())
            #expect(throws: Never.self, "\(configuration.subprotocols)") { try server.start() }
            server.shutdown()
        }
    }

    @Test func missingPublicDirectoryThrows() {
        var configuration = TestProtocol.serverConfiguration()
        configuration.publicDirectory = "/nonexistent/public"
        let server = WebSocketServer(configuration: configuration, delegate: Quiet())
        #expect(throws: WebSocketError.self) { try server.start() }
        server.shutdown()
    }

    @Test func connectingToAClosedPortReportsFailure() throws {
        // Bind and close a socket to find a port nobody listens on.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length); return getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        close(fd)

        let delegate = TestClientDelegate()
        let client = WebSocketClient(delegate: delegate, maxMessageBytes: TestProtocol.clientMaxMessageBytes)
        try client.start()
        defer { client.shutdown() }
        let id = try client.connect(url: "ws://127.0.0.1:\(port)/ws", subprotocol: TestProtocol.subprotocol)
        #expect(delegate.waitForOutcome(id) == false)
    }

    @Test func libWebSocketsLogReachesTheInjectedSink() throws {
        let lines = EventCollector<String>()
        LibWebSocketsLog.route(maximumLevel: .warning) { level, line in
            if level <= .warning { lines.append(line) }
        }
        defer { LibWebSocketsLog.route(maximumLevel: .warning, to: LibWebSocketsLog.standardErrorSink) }
        var configuration = TestProtocol.serverConfiguration()
        let server = WebSocketServer(configuration: configuration, delegate: Quiet())
        let port = try server.start()
        defer { server.shutdown() }
        // Binding the same port again makes lws log errors.
        configuration.port = port
        #expect(throws: WebSocketError.self) { try WebSocketServer(configuration: configuration, delegate: Quiet()).start() }
        let line = lines.wait { $0.first { $0.contains("\(port)") } }
        #expect(line != nil)
        #expect(line?.hasSuffix("\n") == false)
    }

    @Test func malformedURLsThrow() throws {
        let client = WebSocketClient(delegate: TestClientDelegate(), maxMessageBytes: TestProtocol.clientMaxMessageBytes)
        try client.start()
        defer { client.shutdown() }
        for url in ["http://x/ws", "ws://", "ws://host:99999/", "wss://secure/", "ws://[::1/"] {
            #expect(throws: WebSocketError.self) { try client.connect(url: url, subprotocol: TestProtocol.subprotocol) }
        }
    }

    @Test func connectBeforeStartThrows() {
        let client = WebSocketClient(delegate: TestClientDelegate(), maxMessageBytes: TestProtocol.clientMaxMessageBytes)
        #expect(throws: WebSocketError.self) { try client.connect(url: "ws://127.0.0.1:1/ws", subprotocol: TestProtocol.subprotocol) }
    }
}

@Suite("Pure helpers")
struct HelperTests {
    @Test func parsesWebSocketURLs() throws {
        let url = try WebSocketURL("ws://127.0.0.1:9001/ws?room=a")
        #expect(url == WebSocketURL.make(host: "127.0.0.1", port: 9001, path: "/ws?room=a"))
        #expect(try WebSocketURL("ws://example.test").pathAndQuery == "/")
        #expect(try WebSocketURL("ws://example.test").port == 80)
        #expect(try WebSocketURL("ws://[::1]:8080?x").host == "::1")
        #expect(try WebSocketURL("ws://[::1]:8080?x").pathAndQuery == "/?x")
    }

    @Test func contentTypes() {
        #expect(StaticFiles.contentType(for: "/a/b.MJS") == "text/javascript; charset=utf-8")
        #expect(StaticFiles.contentType(for: "/a/.hidden") == "application/octet-stream")
        #expect(StaticFiles.contentType(for: "/a/noext") == "application/octet-stream")
    }

    @Test func assemblerCapsAndValidates() {
        var assembler = MessageAssembler(maxBytes: 4)
        var delivered: [InboundMessage] = []
        func feed(_ bytes: [UInt8], binary: Bool, final: Bool) -> MessageAssembler.InPlaceOutcome {
            bytes.withUnsafeBytes { chunk in
                assembler.appendInPlace(chunk, binary: binary, final: final) { payload, isBinary in
                    delivered.append(isBinary ? .binary(Array(payload)) : .text(String(decoding: payload, as: UTF8.self)))
                }
            }
        }
        #expect(feed([0xE2, 0x9C], binary: false, final: false) == .incomplete)
        #expect(feed([0x93], binary: false, final: true) == .delivered)
        #expect(feed([0xFF], binary: false, final: true) == .invalidUTF8)
        #expect(feed([1, 2, 3, 4, 5], binary: true, final: true) == .tooBig)
        #expect(feed([1, 2, 3], binary: true, final: false) == .incomplete)
        #expect(feed([4, 5], binary: false, final: true) == .tooBig)
        #expect(feed([0xFF], binary: true, final: true) == .delivered)
        #expect(delivered == [.text("✓"), .binary([0xFF])])
    }
}

extension WebSocketURL {
    static func make(host: String, port: Int, path: String) -> WebSocketURL? {
        try? WebSocketURL("ws://\(host):\(port)\(path)")
    }
}
