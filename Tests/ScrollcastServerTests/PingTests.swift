import Testing
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// `ping` (docs/protocol.md): the connection's node answers `pong` with the ping's id at once,
/// joined or not, in the connection's version; a malformed one is a protocol error.
@Suite("Ping")
@RoomActor struct PingTests {
    @Test func aPingIsAnsweredAtOnceBeforeAndAfterTheJoin() throws {
        let h = Harness()
        let (early, earlySink) = h.viewer(joining: nil)
        h.send(#"{"type":"ping","id":7}"#, from: early)
        #expect(try earlySink.v1Messages() == [.pong(id: 7)], "before any join, without a tick")
        let (joined, joinedSink) = h.viewer(version: .v2)
        let before = joinedSink.received.count
        h.send(#"{"type":"ping","id":9007199254740991}"#, from: joined)
        let answers = try joinedSink.v2Messages().dropFirst(before)
        #expect(Array(answers) == [.message(.pong(id: 9_007_199_254_740_991))])
        #expect(earlySink.closedWith == nil && joinedSink.closedWith == nil)
    }

    @Test(arguments: [#"{"type":"ping"}"#, #"{"type":"ping","id":0}"#, #"{"type":"ping","id":1.5}"#])
    func aMalformedPingIsAProtocolError(text: String) throws {
        let h = Harness()
        let (id, sink) = h.viewer(joining: nil)
        h.send(text, from: id)
        #expect(sink.closedWith?.code == .policyViolation, "\(text)")
        #expect(sink.messages(ofType: "pong").isEmpty)
    }
}
