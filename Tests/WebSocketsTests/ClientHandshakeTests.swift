import Testing
@testable import WebSockets

@Suite("Client opening handshake: request and response checks")
struct ClientHandshakeTests {
    /// RFC 6455 §1.3's worked example.
    @Test func acceptMatchesTheRFCExample() {
        #expect(ClientHandshake.expectedAccept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func base64MatchesRFC4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors { #expect(Base64.encode(Array(plain.utf8)) == encoded) }
    }
}

@Suite("Client opening handshake: response verdicts")
struct ClientHandshakeResponseTests {
    static let key = [UInt8](repeating: 7, count: 16)

    static func response(status: String = "101 Switching Protocols", accept: String? = nil,
                         headers: [String] = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Protocol: test.v1"]) -> [UInt8] {
        let handshake = ClientHandshake(keyBytes: key, subprotocol: "test.v1")
        var lines = ["HTTP/1.1 \(status)"] + headers
        lines.append("Sec-WebSocket-Accept: \(accept ?? ClientHandshake.expectedAccept(forKey: handshake.key))")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    static func verdict(_ bytes: [UInt8], subprotocol: String? = "test.v1") -> ClientHandshake.Progress {
        var handshake = ClientHandshake(keyBytes: key, subprotocol: subprotocol)
        return bytes.withUnsafeBytes { handshake.feed($0) }
    }

    @Test func requestCarriesEveryHeader() {
        let handshake = ClientHandshake(keyBytes: Self.key, subprotocol: "test.v1")
        let text = String(decoding: handshake.request(hostHeader: "h:81", pathAndQuery: "/ws?room=a", origin: "http://o.test"), as: UTF8.self)
        #expect(text.hasPrefix("GET /ws?room=a HTTP/1.1\r\n"))
        for line in ["Host: h:81", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: \(Base64.encode(Self.key))",
                     "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: test.v1", "Origin: http://o.test"] {
            #expect(text.contains("\r\n\(line)\r\n"), "\(line)")
        }
        #expect(text.hasSuffix("\r\n\r\n"))
        let bare = ClientHandshake(keyBytes: Self.key, subprotocol: nil).request(hostHeader: "h", pathAndQuery: "/", origin: nil)
        #expect(!String(decoding: bare, as: UTF8.self).contains("Sec-WebSocket-Protocol"))
        #expect(!String(decoding: bare, as: UTF8.self).contains("Origin"))
    }

    @Test func goodResponseUpgradesAndLeavesTheFramesAfterIt() {
        let frames: [UInt8] = [0x81, 0x01, 0x61]
        #expect(Self.verdict(Self.response() + frames) == .upgraded(bodyOffset: Self.response().count))
    }

    @Test func responseSplitAtEveryByteBoundary() {
        let whole = Self.response() + [0x81, 0x01, 0x61]
        let headerCount = Self.response().count
        for split in 1..<whole.count {
            var handshake = ClientHandshake(keyBytes: Self.key, subprotocol: "test.v1")
            let first = Array(whole[..<split]).withUnsafeBytes { handshake.feed($0) }
            if split >= headerCount {
                #expect(first == .upgraded(bodyOffset: headerCount), "split at \(split)")
                continue
            }
            #expect(first == .incomplete, "split at \(split)")
            let second = Array(whole[split...]).withUnsafeBytes { handshake.feed($0) }
            #expect(second == .upgraded(bodyOffset: headerCount - split), "split at \(split)")
        }
    }

    @Test func headerNamesAndTokensAreCaseInsensitive() {
        let headers = ["upgrade: WebSocket", "connection: keep-alive, UPGRADE", "sec-websocket-protocol: test.v1"]
        #expect(Self.verdict(Self.response(headers: headers)) == .upgraded(bodyOffset: Self.response(headers: headers).count))
    }

    @Test func wrongStatusIsARefusalWithTheStatus() {
        guard case .failed(let why) = Self.verdict(Array("HTTP/1.1 403 Forbidden\r\ncontent-length: 6\r\n\r\ndenied".utf8)) else {
            Issue.record("403 accepted")
            return
        }
        #expect(why.contains("403 Forbidden"), "\(why)")
        guard case .failed(let notHTTP) = Self.verdict(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) else {
            Issue.record("non-HTTP accepted")
            return
        }
        #expect(notHTTP.contains("did not answer with HTTP"))
    }

    @Test func badAcceptFails() {
        #expect(Self.verdict(Self.response(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")) == .failed("the handshake response has a wrong Sec-WebSocket-Accept"))
    }

    @Test func missingUpgradeOrConnectionFails() {
        let noUpgrade = Self.response(headers: ["Connection: Upgrade", "Sec-WebSocket-Protocol: test.v1"])
        #expect(Self.verdict(noUpgrade) == .failed("the handshake response lacks \"Upgrade: websocket\""))
        let noConnection = Self.response(headers: ["Upgrade: websocket", "Sec-WebSocket-Protocol: test.v1"])
        #expect(Self.verdict(noConnection) == .failed("the handshake response lacks \"Connection: upgrade\""))
    }

    @Test func subprotocolMustBeTheOneAskedFor() {
        let none = Self.response(headers: ["Upgrade: websocket", "Connection: Upgrade"])
        #expect(Self.verdict(none) == .failed("the server did not agree to subprotocol \"test.v1\""))
        let other = Self.response(headers: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Protocol: x"])
        #expect(Self.verdict(other) == .failed("the server chose subprotocol \"x\" instead of \"test.v1\""))
        #expect(Self.verdict(none, subprotocol: nil) == .upgraded(bodyOffset: none.count))
        let extensions = Self.response(headers: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Protocol: test.v1",
                                                  "Sec-WebSocket-Extensions: permessage-deflate"])
        guard case .failed = Self.verdict(extensions) else { Issue.record("unoffered extension accepted"); return }
    }

    @Test func headerBlockOverTheLimitFails() {
        let filler = "X-Filler: " + String(repeating: "y", count: ClientHandshake.maxResponseBytes)
        let big = Self.response(headers: ["Upgrade: websocket", filler, "Connection: Upgrade"])
        #expect(Self.verdict(big) == .failed("the server's handshake response is larger than \(ClientHandshake.maxResponseBytes) bytes"))
        // Also when the bytes trickle in without ever ending the header block.
        var handshake = ClientHandshake(keyBytes: Self.key, subprotocol: nil)
        var last = ClientHandshake.Progress.incomplete
        let line = Array("X-Filler: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n".utf8)
        for _ in 0..<300 where last == .incomplete { last = line.withUnsafeBytes { handshake.feed($0) } }
        #expect(last == .failed("the server's handshake response is larger than \(ClientHandshake.maxResponseBytes) bytes"))
    }
}
