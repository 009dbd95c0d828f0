import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// The complete-history mark (docs/protocol.md, "The complete history"), on the manual clock:
/// for a viewer that asked, no `applied` ever arrives with a time at or before a mark it already
/// received (a frame's `t`, an `applied`'s `complete`, a `beat`'s `complete`), and beats go out
/// while inputs are held or frames skipped.
@Suite("Complete history")
@RoomActor struct CompleteHistoryTests {
    static let asks = #","inputs":true,"complete":true"#

    /// Every `applied` (not `state`) at or before a mark received earlier, described.
    static func violations(_ messages: [ServerMessage]) -> [String] {
        var mark = -Double.infinity
        var found: [String] = []
        for (index, message) in messages.enumerated() {
            switch message {
            case .snapshot(let s): mark = max(mark, s.frame.time)
            case .frame(let f): mark = max(mark, f.time)
            case .beat(let b): mark = max(mark, b.complete)
            case .applied(let a):
                if a.cause != .state, a.time <= mark { found.append("#\(index) applied \(a.id) at \(a.time) ≤ mark \(mark)") }
                if let complete = a.complete { mark = max(mark, complete) }
            default: break
            }
        }
        return found
    }

    static func decoded(_ sink: RecordingViewerSink, _ version: WireVersion) throws -> [ServerMessage] {
        version == .v1 ? try sink.v1Messages() : try sink.v2Common()
    }

    @Test(arguments: [WireVersion.v1, .v2])
    func noAppliedArrivesAtOrBeforeAMarkAlreadyReceived(version: WireVersion) throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: Self.asks, version: version)
        let (driver, _) = h.viewer(extra: Self.asks)
        let (other, otherSink) = h.viewer()
        let (mover, _) = h.viewer()
        h.tick(5)
        // A fling whose moves arrive late (client intervals bunched), then one stamped early.
        h.fling(by: driver, steps: 8, interval: 5, stride: 30)
        h.tick(20)
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(#"{"type":"input","id":20,"t":500,"at":\#(now + 30),"kind":"wheel","dx":0,"dy":120,"mode":"pixel"}"#, from: driver)
        h.input(1, t: 0, "wheel", #""dx":0,"dy":-40,"mode":"pixel""#, from: other)   // unstamped, between
        h.scheduler.advance(by: 3)
        h.input(2, t: 3, "key", #""key":"pageDown""#, from: other)
        h.tick(40)
        h.input(3, t: 700, "scrollToRow", #""section":0,"row":40,"position":"middle","animated":true"#, from: other)
        h.tick(80)
        #expect(try h.dragRowDown(by: mover, watchedBy: otherSink).lifted)
        h.tick(80)
        let messages = try Self.decoded(watcher, version)
        #expect(messages.contains { if case .applied(let a) = $0 { a.complete != nil } else { false } })
        #expect(Self.violations(messages).isEmpty, "\(Self.violations(messages))")
    }

    @Test func theCheckFailsWhereTheRoomTimesAnInputBeforeAFrameItSent() throws {
        // Without the mark (nobody asked), a late input may land before the last frame's `t`:
        // the same check reads that as a violation, so it can fail.
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: #","inputs":true"#)
        let (driver, _) = h.viewer()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver)
        h.tick(3)
        h.input(2, t: 16, "pointerMove", #""x":100,"y":560"#, from: driver)   // frame at once
        h.tick(6)                                                              // ~100 ms later
        h.input(3, t: 20, "pointerMove", #""x":100,"y":520"#, from: driver)   // mapped back to ~20 ms
        #expect(!Self.violations(try watcher.v1Messages()).isEmpty)
    }

    @Test func beatsGoOutWhileAnInputIsHeldAndOnceAtRest() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: Self.asks)
        let (driver, _) = h.viewer()
        h.tick(3)
        let joinBeats = try watcher.v1Messages().compactMap { if case .beat(let b) = $0 { b } else { nil } }
        #expect(joinBeats.count == 1, "a beat follows the snapshot")
        let before = watcher.received.count
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(#"{"type":"input","id":1,"t":0,"at":\#(now + 100),"kind":"key","key":"pageDown"}"#, from: driver)
        h.scheduler.advance(by: 99)
        let held = try watcher.v1Messages().suffix(watcher.received.count - before)
        let beats = held.compactMap { if case .beat(let b) = $0 { b } else { nil } }
        #expect(beats.count >= 5, "one a frame period while held: \(beats.count)")
        #expect(beats.allSatisfy { $0.complete < now + 100 && $0.complete <= $0.time })
        #expect(!held.contains { if case .applied = $0 { true } else { false } })
        h.scheduler.advance(by: 1)
        let applied = try watcher.v1Messages().compactMap { if case .applied(let a) = $0, a.cause == .input { a } else { nil } }
        #expect(applied.map(\.time) == [now + 100])
        // The key's animation ends at rest; its last frame says the mark, no beat after it.
        h.scheduler.advance(by: 2000)
        let last = try #require(try watcher.v1Messages().last)
        if case .frame(let f) = last { #expect(!f.animating) } else { Issue.record("ends with \(last)") }
        #expect(Self.violations(try watcher.v1Messages()).isEmpty)
    }

    @Test func aHeldInputRefusedAtItsTimeLeavesARestBeat() throws {
        let h = WireV2Tests.demoHarness()
        let (_, watcher) = h.viewer(extra: Self.asks)
        let (driver, _) = h.viewer()
        let (other, _) = h.viewer()
        h.tick(3)
        let now = try #require(h.registry.room(named: "demo")).now
        h.send(#"{"type":"input","id":1,"t":0,"at":\#(now + 10),"kind":"key","key":"pageDown"}"#, from: other)
        h.input(1, t: 0, "pointerDown", #""x":100,"y":600"#, from: driver)   // claims the room now
        h.scheduler.advance(by: 12)
        h.input(2, t: 12, "pointerCancel", from: driver)
        h.scheduler.advance(by: 100)
        let messages = try watcher.v1Messages()
        #expect(!messages.contains { if case .applied(let a) = $0 { a.viewer?.hasSuffix("3") == true && a.id == 1 && a.cause == .input && a.change == .input(.key(.pageDown)) } else { false } })
        #expect(Self.violations(messages).isEmpty)
    }
}
