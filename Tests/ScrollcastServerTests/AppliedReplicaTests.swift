import Testing
import ScrollEngine
@testable import ScrollWire
import ScrollReplica
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// `applied` messages (docs/protocol.md, "Inputs applied"): a native replica of the engine
/// (`ReplicaFollower`) fed only from what a viewer that joined with `inputs: true` receives
/// reproduces every frame the room sends, byte for byte, in both versions: drags and flings,
/// wheel, keys, scroll-to-row, resize, reduced motion, a row move, and the cancel the room gives
/// a driver that leaves mid-gesture. Viewers that did not ask receive no `applied` message.
@Suite("Applied inputs and the replica")
@RoomActor struct AppliedReplicaTests {
    /// Feeds `sink`'s messages, in order, to a follower; returns it and the mismatches (seq and
    /// both byte strings in hex).
    static func follow(_ sink: RecordingViewerSink, _ version: WireVersion) throws -> (ReplicaFollower, [String]) {
        var follower = ReplicaFollower()
        var decoder = ServerMessageDecoderV2()
        var mismatches: [String] = []
        for message in sink.received {
            let decoded: ServerMessage
            switch version {
            case .v1: decoded = try ServerMessageDecoder.decode(message.bytes)
            case .v2:
                guard case .message(let m) = try decoder.decode(message.bytes) else { continue }
                decoded = m
            }
            switch decoded {
            case .snapshot(let s): _ = follower.snapshot(s)
            case .applied(let a): follower.applied(a)
            case .rowMoved(let m): follower.rowMoved(m)
            case .frame(let f):
                if case .mismatch(let mine, let server) = follower.frame(f, bytes: message.bytes, version: version,
                                                                           texts: decoder.texts) {
                    mismatches.append("seq \(f.seq): replica \(hex(mine)) server \(hex(server))")
                }
            default: break
            }
        }
        return (follower, mismatches)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
    }

    /// Every kind of input, from fresh connections (each its own ids and clock), with the room
    /// coming to rest between them.
    static func drive(_ h: Harness, watcher: RecordingViewerSink) throws {
        let (flinger, _) = h.viewer()
        h.fling(by: flinger, steps: 8, interval: 16, stride: 45)
        h.tick(150)
        let (wheeler, _) = h.viewer()
        for i in 0..<12 {
            h.input(UInt64(1 + i), t: Double(i) * 16, "wheel", #""dx":0,"dy":\#(40 + i * 3),"mode":"pixel""#, from: wheeler)
            h.tick()
        }
        h.input(20, t: 400, "wheel", #""dx":0,"dy":3,"mode":"line""#, from: wheeler)
        h.tick(120)
        h.input(21, t: 3000, "key", #""key":"pageDown""#, from: wheeler)
        h.tick(60)
        h.input(22, t: 4000, "key", #""key":"arrowUp""#, from: wheeler)
        h.tick(60)
        h.input(23, t: 5000, "scrollToRow", #""section":3,"row":2,"position":"middle","animated":true"#, from: wheeler)
        h.tick(90)
        h.input(24, t: 6000, "resize", #""width":414,"height":700"#, from: wheeler)
        h.tick(30)
        h.input(25, t: 7000, "reducedMotion", #""on":true"#, from: wheeler)
        h.tick(10)
        let (second, _) = h.viewer()
        h.fling(by: second, steps: 6, interval: 16, stride: 40)
        h.tick(60)
        h.input(26, t: 9000, "reducedMotion", #""on":false"#, from: wheeler)
        h.tick(10)
        let (mover, _) = h.viewer()
        _ = try h.dragRowDown(by: mover, watchedBy: watcher)
        h.tick(120)
        // A driver that leaves mid-drag: the room cancels its gesture.
        let (leaver, _) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":120,"y":500"#, from: leaver)
        for step in 1...5 {
            h.scheduler.advance(by: 16)
            h.input(UInt64(1 + step), t: Double(step) * 16, "pointerMove", #""x":120,"y":\#(500 - 30 * step)"#, from: leaver)
        }
        h.service.closed(leaver)
        h.tick(150)
    }

    @Test func aReplicaFedOnlyFromAppliedMessagesReproducesEveryFrame() throws {
        let h = WireV2Tests.demoHarness()
        let (_, v1) = h.viewer(extra: #","inputs":true"#, version: .v1)
        let (_, v2) = h.viewer(extra: #","inputs":true"#, version: .v2)
        let (_, plainV1) = h.viewer(version: .v1)
        let (_, plainV2) = h.viewer(version: .v2)
        try Self.drive(h, watcher: v1)
        for (sink, version) in [(v1, WireVersion.v1), (v2, .v2)] {
            let (follower, mismatches) = try Self.follow(sink, version)
            #expect(mismatches.isEmpty, "\(version): \(mismatches.prefix(3))")
            #expect(follower.compared > 300 && follower.compared == follower.identical, "\(version): \(follower.compared) compared")
            #expect(follower.waited == 0, "the room was at rest at the snapshot")
        }
        let kinds = try v1.v1Messages().compactMap { message -> String? in
            guard case .applied(let a) = message else { return nil }
            if case .input(let kind) = a.change { return "\(a.cause.rawValue) \(InputKindName(kind).rawValue)" }
            return a.cause.rawValue
        }
        for expected in ["input pointerUp", "input wheel", "input key", "input scrollToRow", "input resize",
                         "input reducedMotion", "leave pointerCancel"] {
            #expect(kinds.contains(expected), "\(expected) in \(Set(kinds))")
        }
        #expect(try v2.v2Common().contains { if case .rowMoved = $0 { true } else { false } }, "a row moved")
        #expect(try !plainV1.v1Messages().contains { if case .applied = $0 { true } else { false } })
        #expect(try !plainV2.v2Common().contains { if case .applied = $0 { true } else { false } })
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func aWatcherJoiningMidFlingStartsAtTheNextRestAndKnowsReducedMotion(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (driver, _) = h.viewer()
        h.input(1, t: 0, "reducedMotion", #""on":true"#, from: driver)
        h.tick(5)
        h.input(2, t: 200, "reducedMotion", #""on":false"#, from: driver)
        h.input(3, t: 210, "reducedMotion", #""on":true"#, from: driver)
        let (flinger, _) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: flinger)
        h.scheduler.advance(by: 16)
        h.input(2, t: 16, "pointerMove", #""x":100,"y":500"#, from: flinger)
        // Joins mid-drag, with an input applied after the last frame and before the next.
        h.scheduler.advance(by: 4)
        h.input(3, t: 20, "pointerMove", #""x":100,"y":480"#, from: flinger)
        let (_, watcher) = h.viewer(extra: #","inputs":true"#, version: version)
        h.scheduler.advance(by: 16)
        h.input(4, t: 36, "pointerUp", #""x":100,"y":440"#, from: flinger)
        h.tick(150)
        let (second, _) = h.viewer()
        h.fling(by: second, steps: 6, interval: 16, stride: 40)
        h.tick(150)
        let (follower, mismatches) = try Self.follow(watcher, version)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
        #expect(follower.waited > 0 && follower.compared > 5 && follower.compared == follower.identical,
                "waited \(follower.waited), compared \(follower.compared)")
        #expect(follower.replica?.scene.isReducedMotion == true)
    }

    @Test func frameTimesAreWhatTheWireSays() {
        for x in [0.0, 0.07, 1.005, 16.666666666666668, 53211.123456, 123456.789999, 1e9 + 0.004] {
            let t = Room.frameTime(x)
            #expect(t >= x && t - x < 0.0101, "\(x) → \(t)")
            #expect(WirePrecision.milliseconds.value(units: WirePrecision.milliseconds.wireUnits(t)) == t, "\(x) → \(t)")
        }
    }
}
