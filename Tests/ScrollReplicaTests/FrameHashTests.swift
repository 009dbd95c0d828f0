import ScrollEngine
import ScrollReplica
import ScrollWire
import Testing

/// The beat's frame hash (docs/protocol.md, "Engine state bytes and the frame hash"): FNV-1a 64
/// of the frame alone, so replicas that took different frames agree, and any difference in the
/// picture or the input it names changes it.
@Suite struct FrameHashTests {
    @Test("FNV-1a 64 gives the published values")
    func knownValues() {
        #expect(FrameHash.fnv1a64([]) == 0xcbf2_9ce4_8422_2325)
        #expect(FrameHash.fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FrameHash.fnv1a64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test("a replica that encoded other frames before agrees; a lost input or another time does not")
    func hashFollowsTheFrameOnly() throws {
        var room = try #require(EngineReplica(sceneNamed: "demo"))
        var watcher = room
        let inputs: [InputKind] = [.pointerDown(Point(x: 100, y: 500)), .pointerMoved(Point(x: 100, y: 420)),
                                   .pointerMoved(Point(x: 100, y: 300)), .pointerUp(Point(x: 100, y: 250))]
        var lost = room
        for (i, kind) in inputs.enumerated() {
            let event = InputEvent(id: UInt64(i + 1), time: Double(i) * 16, kind: kind)
            _ = room.apply(event, viewer: "d")
            _ = watcher.apply(event, viewer: "d")
            if i != 2 { _ = lost.apply(event, viewer: "d") }
            // The room encodes a frame after every input (its texts table grows); the watcher none.
            _ = room.frame(at: Double(i) * 16 + 8, sequence: UInt64(i), sentAt: 0)
        }
        var differ = 0
        for t in stride(from: 60.0, through: 2000, by: 100) {
            #expect(room.frameHash(at: t) == watcher.frameHash(at: t))
            if room.frameHash(at: t) != lost.frameHash(at: t) { differ += 1 }
            #expect(room.frameHash(at: t) != room.frameHash(at: t + 16) || room.scene.frame(at: t).phase == .idle)
        }
        // The watcher that lost a move flings from elsewhere: every beat through the fling shows it.
        #expect(differ >= 5, "\(differ) beats told the lost input")
    }
}
