import Testing
import ScrollEngine
@testable import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// `applied` messages leave with the frame that first shows them (AppliedBundlingChannel.swift):
/// handed to the viewer's sink together with that frame, just before it, so the transport can
/// write them in one go; held ones go out first when anything else is sent; the driver's frame is
/// not later for it.
@Suite("Applied messages with their frame")
@RoomActor struct AppliedWithFrameTests {
    /// Each `applied` (cause input) of `messages` with the seq of the first frame after it.
    static func appliedThenFrame(_ messages: [ServerMessage]) -> [(after: UInt64, nextFrame: UInt64?)] {
        var pairs: [(UInt64, UInt64?)] = []
        for (index, message) in messages.enumerated() {
            guard case .applied(let a) = message, a.cause == .input else { continue }
            let next = messages[(index + 1)...].lazy.compactMap { if case .frame(let f) = $0 { f.seq } else { nil } }.first
            pairs.append((a.after, next))
        }
        return pairs
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func everyAppliedInputArrivesWithTheFrameThatFirstShowsIt(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#, version: version)
        let (driver, driverSink) = h.viewer()
        h.tick(2)
        let handedBefore = watcher.receivedWithFrames
        // Moves 4 ms apart: several inputs between two frames (at most one every half period).
        h.fling(by: driver, steps: 12, interval: 4, stride: 20)
        h.tick(60)
        let messages: [ServerMessage] = version == .v1 ? try watcher.v1Messages() : try watcher.v2Common()
        let pairs = Self.appliedThenFrame(messages)
        #expect(pairs.count == 14, "every input of the fling was applied: \(pairs.count)")
        for (after, next) in pairs {
            #expect(next == after + 1, "applied after \(after): first frame after it is \(String(describing: next))")
        }
        // Handed over with their frame: all but those of the press and the release, which change
        // the driver; the presence saying so goes out at once and takes what is held with it.
        #expect(watcher.receivedWithFrames - handedBefore >= pairs.count - 2)
        // The driver (not watching) got no `applied` and its frames as before.
        #expect(try !driverSink.v1Messages().contains { if case .applied = $0 { true } else { false } })
    }

    @Test func heldAppliedMessagesGoFirstWhenAViewerJoinsAndReachTheJoinerOnce() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, _) = h.viewer()
        h.tick(30)
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver)   // frame at once
        h.scheduler.advance(by: 2)
        h.input(2, t: 2, "pointerMove", #""x":100,"y":560"#, from: driver)   // held: frame waits
        let before = watcher.received.count
        // A third viewer, watching too, joins before that frame: the others hear of it in a
        // presence, which must not overtake the held `applied`; the joiner gets that `applied`
        // after its snapshot (what the room applied since its last frame), once.
        let (_, joiner) = h.viewer(extra: #","inputs":true"#)
        h.tick(30)
        let joinerInputs = try joiner.v1Messages().compactMap { message -> UInt64? in
            if case .applied(let a) = message, a.cause == .input { a.id } else { nil }
        }
        #expect(joinerInputs.prefix(1) == [2] && joinerInputs.filter { $0 == 2 }.count == 1, "\(joinerInputs)")
        let types = try watcher.v1Messages().suffix(watcher.received.count - before).map { message -> String in
            switch message {
            case .applied(let a): return "applied \(a.after)"
            case .frame(let f): return "frame \(f.seq)"
            case .presence: return "presence"
            default: return "other"
            }
        }
        let applied = try #require(types.firstIndex { $0.hasPrefix("applied") })
        let frame = try #require(types.firstIndex { $0.hasPrefix("frame") })
        #expect(applied < frame, "\(types)")
        if let presence = types.firstIndex(of: "presence") { #expect(applied < presence, "\(types)") }
    }
}
