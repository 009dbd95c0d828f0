import Testing
import ScrollEngine
import ScrollWire
@testable import ScrollcastCluster
import ScrollcastRooms

@Suite("Relay envelope")
struct RelayEnvelopeTests {
    @Test("an envelope decodes to what was encoded, for every audience and absent forms")
    func roundTrip() {
        let audiences: [Audience] = [.everyone, .viewer("n1/v3"), .everyoneExcept("n2/v1"), .inputWatchers]
        for audience in audiences {
            let envelope = RelayEnvelope(kind: .frame, epoch: 7, sequence: 1234, publishedAt: 1_763_900_000_123.5,
                                         node: "127.0.0.1:8081", audience: audience, v1: Array("{\"type\":\"frame\"}".utf8),
                                         v2: nil)
            #expect(RelayEnvelope.decode(envelope.encoded()) == envelope)
        }
        let binary = RelayEnvelope(kind: .reliable, epoch: 1, publishedAt: 0, node: "n", v1: nil, v2: [0, 1, 0, 255])
        #expect(RelayEnvelope.decode(binary.encoded()) == binary)
    }

    @Test("truncated, padded or unknown bytes decode to nothing rather than a wrong message")
    func damaged() {
        let bytes = RelayEnvelope(kind: .owner, epoch: 3, publishedAt: 1, node: "n0", v1: [], v2: nil).encoded()
        for length in 0..<bytes.count {
            #expect(RelayEnvelope.decode(Array(bytes.prefix(length))) == nil, "prefix of \(length) bytes")
        }
        #expect(RelayEnvelope.decode(bytes + [0]) == nil)
        var newer = bytes
        newer[0] = 2
        #expect(RelayEnvelope.decode(newer) == nil)
        var kind = bytes
        kind[1] = 9
        #expect(RelayEnvelope.decode(kind) == nil)
    }
}

@Suite("Cluster text forms")
struct ClusterTextFormTests {
    @Test("row orders survive their Redis text form; junk is refused")
    func rowOrder() {
        let order = [[3, 1, 2], [], [10, 0]]
        #expect(RowOrderText.decode(RowOrderText.encode(order)) == order)
        #expect(RowOrderText.decode("") == nil)
        #expect(RowOrderText.decode("1,x;2") == nil)
    }

    @Test("lease values name node and epoch, even for node ids with colons")
    func lease() {
        let value = ClusterKeys.leaseValue(node: "127.0.0.1:8081", epoch: 42)
        #expect(ClusterKeys.parseLease(value)! == ("127.0.0.1:8081", 42))
        #expect(ClusterKeys.parseLease("n1") == nil)
        #expect(ClusterKeys.parseLease("n1|x") == nil)
    }

    @Test("node messages decode to what was sent: a roster, and an input as a typed value, its header binary")
    func nodeMessage() throws {
        let roster = NodeMessage.roster(room: "r", node: "n1", viewers: [.init(id: "n1/v1", version: 2, generation: 3, key: nil)])
        #expect(NodeMessage.decode(roster.encoded()) == roster)
        // A viewer that asked for `applied` messages keeps asking on the owner node.
        let watcher = NodeMessage.RosterViewer(id: "n1/v2", version: 2, generation: 1, key: nil, inputs: true)
        let watching = NodeMessage.roster(room: "r", node: "n1", viewers: [watcher])
        #expect(NodeMessage.decode(watching.encoded()) == watching)
        #expect(watcher.joinRequest(room: "r").inputs)
        // A resume rides in a roster under the wire's own field names, which every node reads.
        let resuming = NodeMessage.RosterViewer(id: "n1/v3", version: 1, generation: 0, key: nil,
                                                resume: ResumeRequest(life: 5, seq: 9, rowMoveVersion: 2))
        let resumingRoster = NodeMessage.roster(room: "r", node: "n1", viewers: [resuming])
        #expect(NodeMessage.decode(resumingRoster.encoded()) == resumingRoster)
        #expect(String(decoding: resumingRoster.encoded(), as: UTF8.self).contains(#""moves":2"#))
        let move = InputMessage(id: 7, clientTime: 123.5, kind: .pointerMoved(Point(x: 10, y: 20.25)))
        let input = NodeMessage.input(room: "lobby", node: "127.0.0.1:8081", viewer: "127.0.0.1:8081/v3", input: move)
        let bytes = input.encoded()
        #expect(NodeMessage.decode(bytes) == input)
        // format 2, kind 2 (input), then the room as u16 length + bytes.
        #expect(Array(bytes.prefix(9)) == [2, 2, 0, 5] + Array("lobby".utf8))
        // Every kind of input survives the trip as the same typed value.
        let kinds: [InputKind] = [
            .pointerDown(Point(x: 1, y: 2)), .pointerMoved(Point(x: -3.5, y: 4)), .pointerUp(Point(x: 5, y: 6)), .pointerCancelled,
            .wheel(dx: 0.5, dy: -120, mode: .line), .wheel(dx: 0, dy: 3, mode: .page), .key(.shiftSpace), .key(.end),
            .scrollToRow(IndexPath(section: 1, row: 17), position: .middle, animated: true),
            .longPressBegan(Point(x: 7, y: 8)), .longPressMoved(Point(x: 9, y: 10)), .longPressEnded(Point(x: 11, y: 12)),
            .longPressCancelled, .resize(Size(width: 390, height: 844)), .reducedMotion(true),
        ]
        for (index, kind) in kinds.enumerated() {
            let message = NodeMessage.input(room: "r", node: "n", viewer: "n/v1",
                                            input: InputMessage(id: UInt64(index), clientTime: Double(index) * 16.5, kind: kind))
            #expect(NodeMessage.decode(message.encoded()) == message)
        }
        // Damaged or foreign payloads are nil, never a crash.
        #expect(NodeMessage.decode(Array("{}".utf8)) == nil)
        #expect(NodeMessage.decode(Array(bytes.prefix(12))) == nil)
        #expect(NodeMessage.decode([2, 9, 0, 0, 0, 0]) == nil)
        #expect(NodeMessage.decode(bytes + [0]) == nil)
        var badKind = bytes
        badKind[9 + 2 + 14 + 2 + 17 + 16] = 99
        #expect(NodeMessage.decode(badKind) == nil)
    }

    @Test("a refusal travels back to the viewer's node whole; an unknown code or a cut one decodes to nothing")
    func refusedNodeMessage() {
        let refused = NodeMessage.refused(room: "lobby", node: "n0", viewer: "n1/v3", input: 1 << 40, code: .unavailable,
                                          reason: RoomLink.steppedDownReason)
        let bytes = refused.encoded()
        #expect(NodeMessage.decode(bytes) == refused)
        #expect(refused.room == "lobby" && refused.node == "n0")
        // format 2, kind 3 (refused), then the room as u16 length + bytes.
        #expect(Array(bytes.prefix(4)) == [2, 3, 0, 5])
        #expect(NodeMessage.decode(Array(bytes.dropLast())) == nil)
        #expect(NodeMessage.decode(bytes + [0]) == nil)
        let unknown = NodeMessage.refused(room: "r", node: "n0", viewer: "n1/v1", input: 1, code: .driving, reason: "x").encoded()
        var forged = unknown
        // The code's bytes ("driving") start after the header, the viewer and the id.
        let codeStart = 2 + (2 + 1) + (2 + 2) + (2 + 5) + 8 + 2
        forged[codeStart] = UInt8(ascii: "X")
        #expect(NodeMessage.decode(unknown) != nil)
        #expect(NodeMessage.decode(forged) == nil)
    }

    @Test("the inputs stream's fields: a roster names the stream and engine, a keyframe request and a move to frames travel whole")
    func inputsStreamMessages() {
        let streamer = NodeMessage.RosterViewer(id: "n1/v4", version: 2, generation: 0, key: nil, inputs: true, complete: true,
                                                stream: "inputs", engine: EngineVersion.current)
        let roster = NodeMessage.roster(room: "r", node: "n1", viewers: [streamer])
        #expect(NodeMessage.decode(roster.encoded()) == roster)
        let request = streamer.joinRequest(room: "r")
        #expect(request.stream == .inputs && request.engine == EngineVersion.current)
        // A roster of an older node (no stream) admits frames viewers; an unknown stream too.
        #expect(NodeMessage.RosterViewer(id: "n1/v5", version: 1, generation: 0, key: nil).joinRequest(room: "r").stream == .frames)
        #expect(NodeMessage.RosterViewer(id: "n1/v5", version: 1, generation: 0, key: nil, stream: "pictures")
            .joinRequest(room: "r").stream == .frames)
        let keyframe = NodeMessage.keyframe(room: "lobby", node: "n2", viewer: "n2/v1")
        let bytes = keyframe.encoded()
        #expect(NodeMessage.decode(bytes) == keyframe)
        #expect(Array(bytes.prefix(4)) == [2, 4, 0, 5])
        #expect(NodeMessage.decode(Array(bytes.dropLast())) == nil)
        #expect(NodeMessage.decode(bytes + [0]) == nil)
        let moved = RelayEnvelope(kind: .movedToFrames, epoch: 3, publishedAt: 1, node: "n1", audience: .viewer("n2/v1"))
        #expect(RelayEnvelope.decode(moved.encoded()) == moved)
        let batches = RelayEnvelope(kind: .reliable, epoch: 3, publishedAt: 1, node: "n1", audience: .inputsStream, v1: [1], v2: [2])
        #expect(RelayEnvelope.decode(batches.encoded()) == batches)
        // A batch period asked for travels with the roster and with the batches for it.
        let long = NodeMessage.RosterViewer(id: "n1/v6", version: 2, generation: 0, key: nil, inputs: true, complete: true,
                                            stream: "inputs", engine: EngineVersion.current, batchMs: 250)
        #expect(long.joinRequest(room: "r").batchMs == 250)
        let longRoster = NodeMessage.roster(room: "r", node: "n1", viewers: [long])
        #expect(NodeMessage.decode(longRoster.encoded()) == longRoster)
        let longBatches = RelayEnvelope(kind: .reliable, epoch: 3, publishedAt: 1, node: "n1", audience: .inputsBatches(250), v1: [1], v2: [2])
        #expect(RelayEnvelope.decode(longBatches.encoded()) == longBatches)
        // Beyond the range a join may ask: not an envelope this node made.
        let tooLong = RelayEnvelope(kind: .reliable, epoch: 3, publishedAt: 1, node: "n1", audience: .inputsBatches(1001), v1: [1], v2: [2])
        #expect(RelayEnvelope.decode(tooLong.encoded()) == nil)
    }

    @Test("sharing across nodes: every sharing message travels whole, its refusal names no input, a resume's grant rides in a roster")
    func sharingMessages() {
        let requests: [SharingRequest] = [.ask, .grant(viewer: "n3/v2"), .deny(viewer: "n3/v2"), .view(.explore), .view(.follow), .callBack]
        for request in requests {
            let message = NodeMessage.sharing(room: "lobby", node: "n2", viewer: "n2/v1", request: request)
            let bytes = message.encoded()
            #expect(NodeMessage.decode(bytes) == message)
            #expect(Array(bytes.prefix(4)) == [2, 5, 0, 5])
            #expect(NodeMessage.decode(Array(bytes.dropLast())) == nil)
        }
        // Only a sharing message: an input's JSON (or anything else) in its place decodes to nothing.
        let sharing = NodeMessage.sharing(room: "r", node: "n2", viewer: "n2/v1", request: .ask).encoded()
        let input = Array(#"{"type":"input","id":1,"t":0,"kind":"pointerCancel"}"#.utf8)
        #expect(NodeMessage.decode(Array(sharing.dropLast(#"{"type":"ask"}"#.utf8.count)) + input) == nil)
        let refused = NodeMessage.refused(room: "r", node: "n1", viewer: "n2/v1", input: nil, code: .unavailable, reason: "x")
        #expect(NodeMessage.decode(refused.encoded()) == refused)
        let resuming = NodeMessage.RosterViewer(id: "n2/v3", version: 1, generation: 0, key: nil,
                                                resume: ResumeRequest(life: 5, seq: 9, rowMoveVersion: 2, grant: String(repeating: "ab", count: 32)))
        let roster = NodeMessage.roster(room: "r", node: "n2", viewers: [resuming])
        #expect(NodeMessage.decode(roster.encoded()) == roster)
        #expect(resuming.joinRequest(room: "r").resume?.grant == String(repeating: "ab", count: 32))
    }
}
