import Foundation
import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// What a `fling` gesture costs a viewer of the inputs stream on the page's 250 ms batches
/// (docs/protocol.md, "Period and bound" and `presence`; docs/benchmarks.md, issue 29): its
/// changes and the news of who drives reach it with the beats, in no write of their own, while a
/// viewer of frames hears of each claim and release at once.
@Suite("Inputs stream: a gesture's writes")
@RoomActor struct GestureWritesTests {
    /// Three flings, each started while the last still flies (a beat less than 250 ms before),
    /// on the manual clock with timers up to 3 ms late. Before, each cost the long viewer two
    /// writes beside the beats: its claim's presence with its first change at once, and its
    /// release's presence alone.
    @Test func flingsInMotionReachALongViewerOnlyWithTheBeats() throws {
        let h = WireV2Tests.demoHarness()
        let (_, long) = h.viewer(extra: BatchPeriodTests.joinsLong)
        let (driver, frames) = h.viewer()
        let room = try #require(h.registry.room(named: "demo"))
        let me = try #require(frames.received.lazy.map { decodeJSON($0) }.first { $0["type"] as? String == "snapshot" }?["viewer"] as? String)
        var random = SeededRandom(seed: 7)
        var seen: [ObjectIdentifier: Int] = [:]
        var arrivals: [ObjectIdentifier: [(time: Double, message: [String: Any])]] = [:]
        func note() {
            for sink in [long, frames] {
                let key = ObjectIdentifier(sink)
                for message in sink.received.dropFirst(seen[key, default: 0]) {
                    arrivals[key, default: []].append((room.now, decodeJSON(message)))
                }
                seen[key] = sink.received.count
            }
        }
        let start = h.clock.now
        let roomStart = room.now
        func run(until end: Double) {
            while h.clock.now < start + end {
                h.clock.advance(by: Double.random(in: 0.5...3, using: &random))
                h.scheduler.runDue()
                note()
            }
        }
        note()
        let joined = arrivals[ObjectIdentifier(long)]?.count ?? 0
        var id: UInt64 = 0
        var claims: [Double] = []
        for gesture in 0..<3 {
            let t0 = Double(gesture) * 400
            run(until: t0)
            id += 1
            h.input(id, t: t0, "pointerDown", #""x":100,"y":700"#, from: driver)
            claims.append(room.now)
            note()
            for step in 1...6 {
                run(until: t0 + Double(step) * 8)
                id += 1
                h.input(id, t: t0 + Double(step) * 8, "pointerMove", #""x":100,"y":\#(700 - 40 * step)"#, from: driver)
                note()
            }
            id += 1
            h.input(id, t: t0 + 50, "pointerUp", #""x":100,"y":460"#, from: driver)
            claims.append(room.now)
            note()
        }
        run(until: 10_000)

        let client = try InputsStreamTests.StreamClient.following(long, .v1)
        #expect(client.problems.isEmpty && client.changes == id, "\(client.problems.prefix(3)) \(client.changes)")
        #expect(client.beatsChecked >= 8, "\(client.beatsChecked)")
        // Every write to the long viewer since the join (what reaches it in one room turn) holds a beat.
        let toLong = (arrivals[ObjectIdentifier(long)] ?? []).dropFirst(joined)
        let writes = Dictionary(grouping: toLong, by: \.time)
        let lone = writes.filter { !$0.value.contains { $0.message["type"] as? String == "beat" } }
        #expect(lone.isEmpty, "writes without a beat: \(lone.sorted { $0.key < $1.key }.map { ($0.key - roomStart, $0.value.map { $0.message["type"] as? String ?? "?" }) })")
        #expect(toLong.contains { $0.message["type"] as? String == "presence" && $0.message["driver"] as? String == me },
                "the long viewer hears who drove")
        #expect(toLong.last { $0.message["type"] as? String == "presence" }.map { $0.message["driver"] is NSNull } == true,
                "and that nobody drives at the end")
        // The frames viewer heard of each claim and release as it happened.
        let presences = (arrivals[ObjectIdentifier(frames)] ?? []).filter { $0.message["type"] as? String == "presence" }
        #expect(presences.map(\.time) == claims, "\(presences.map { $0.time - roomStart }) against \(claims.map { $0 - roomStart })")
    }
}
