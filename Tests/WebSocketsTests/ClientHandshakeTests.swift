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
