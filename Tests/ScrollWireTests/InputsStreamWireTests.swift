import Foundation
import Testing
import ScrollEngine
@testable import ScrollWire

/// The inputs stream's pieces on the wire (docs/protocol.md, "The inputs stream"): base64 and the
/// hash's hex text, the refusals of a malformed join, and the doc's snapshot example, whose state
/// bytes are the engine's own.
@Suite("Inputs stream on the wire")
struct InputsStreamWireTests {
    @Test func base64RoundTripsAndRefusesWhatEncodeNeverWrites() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw==")
        for bad in ["YW5", "YW5=5", "Y===", "YW5*", "YR==", "=AAA"] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }

    @Test func theHashIsSixteenLowercaseHexDigits() {
        #expect(HashText.hex(0x0f3e_1c9a_8b7d_6e5f) == "0f3e1c9a8b7d6e5f")
        #expect(HashText.parse("0f3e1c9a8b7d6e5f") == 0x0f3e_1c9a_8b7d_6e5f)
        for bad in ["0F3E1C9A8B7D6E5F", "f3e1c9a8b7d6e5f", "0f3e1c9a8b7d6e5f0", "0x3e1c9a8b7d6e5f"] {
            #expect(HashText.parse(bad) == nil, "\(bad)")
        }
        #expect(throws: WireError.self) { try ServerMessageDecoder.decode(#"{"type":"beat","t":1,"complete":1,"hash":"xyz"}"#) }
    }

    @Test(arguments: [
        (#"{"type":"join","room":"a","stream":"pictures"}"#, "field 'stream' must be one of frames, inputs; got 'pictures'"),
        (#"{"type":"join","room":"a","stream":"inputs","engine":-1}"#, "field 'engine' must be an integer in 0…4294967295"),
        (#"{"type":"join","room":"a","stream":"inputs","engine":1.5}"#, "field 'engine' must be an integer in 0…4294967295"),
        (#"{"type":"join","room":"a","stream":"frames","complete":true}"#, "field 'complete' needs 'inputs': true"),
    ])
    func aMalformedJoinIsRefused(text: String, message: String) {
        #expect(throws: WireError(message)) { try ClientMessageDecoder.decode(text) }
    }

    @Test func theInputsStreamImpliesCompleteAndTheEngineIsOptionalToTheDecoder() throws {
        let join = try ClientMessageDecoder.decode(#"{"type":"join","room":"a","stream":"inputs","complete":true}"#)
        #expect(join == .join(JoinRequest(room: "a", complete: true, stream: .inputs)))
    }

    /// The doc's inputs-stream snapshot: its `replica.state` restored on its scene gives its
    /// `frame` (every field, at the frame's `t`, naming `replica.input`), so the example is the
    /// engine's, not made up. `SCROLLWIRE_DOC_STATE=1` prints a fresh one: the seed table
    /// mid-fling.
    @Test func theSnapshotExampleStateGivesItsFrame() throws {
        if ProcessInfo.processInfo.environment["SCROLLWIRE_DOC_STATE"] != nil { print(Self.freshExample()) }
        let block = try #require(try DocExamplesTests.jsonBlocks().first { $0.contains("\"replica\"") })
        guard case .snapshot(let snapshot) = try ServerMessageDecoder.decode(DocExamplesTests.minified(block)),
              let replica = snapshot.replica else { Issue.record("not an inputs-stream snapshot"); return }
        #expect(snapshot.sceneName == "seed-table" && replica.engine == EngineVersion.current)
        let scene = try ScrollScene(restoring: replica.state, base: SeedTableScene.configuration())
        var frame = scene.frame(at: snapshot.frame.time)
        frame.sequence = snapshot.frame.seq
        #expect(replica.time >= snapshot.frame.time)
        #expect(ServerMessageEncoder.frame(frame, input: replica.input, sentAt: snapshot.frame.sentAt)
                == ServerMessageEncoder.encode(.frame(snapshot.frame)))
    }

    /// The seed table in a 300 pt high viewport, flung at room time 1000, its frame 250 ms later and the state then.
    static func freshExample() -> String {
        var scene = ScrollScene(configuration: SeedTableScene.configuration())
        var id: UInt64 = 1
        func apply(_ kind: InputKind, at time: Double) {
            _ = try? scene.apply(InputEvent(id: id, time: time, kind: kind))
            id += 1
        }
        apply(.resize(Size(width: 390, height: 300)), at: 900)
        apply(.pointerDown(Point(x: 120, y: 250)), at: 1000)
        for step in 1...3 { apply(.pointerMoved(Point(x: 120, y: 250 - 30 * Double(step))), at: 1000 + 16 * Double(step)) }
        apply(.pointerUp(Point(x: 120, y: 140)), at: 1064)
        var frame = scene.frame(at: 1250)
        frame.sequence = 7
        let input = AppliedInput(viewer: "v2", id: id - 1)
        return String(decoding: ServerMessageEncoder.frame(frame, input: input, sentAt: 1_763_800_000_123.4), as: UTF8.self)
            + "\n" + Base64.encode(scene.stateBytes(base: SeedTableScene.configuration()))
    }
}
