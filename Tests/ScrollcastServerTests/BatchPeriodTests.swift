import Testing
import ScrollEngine
import ScrollWire
import ScrollcastServerTesting
@testable import ScrollcastRooms

/// The batch period a viewer of the inputs stream asks for (docs/protocol.md, `batchMs`), on the
/// manual clock: viewers of one room on the default period and on 250 ms get the same changes,
/// each matching every beat; the long period's batches leave at most once per 250 ms (a beat aside),
/// and its viewers share one encoded batch, whatever their number.
@Suite("Inputs stream: the batch period")
@RoomActor struct BatchPeriodTests {
    static let joinsLong = InputsStreamTests.joinsInputs + #","batchMs":250"#

    @Test func aLongPeriodSendsTheSameChangesInBatchesAPeriodApart() throws {
        let h = WireV2Tests.demoHarness()
        let (_, short) = h.viewer(extra: InputsStreamTests.joinsInputs)
        let (_, long) = h.viewer(extra: Self.joinsLong)
        let (_, longToo) = h.viewer(extra: Self.joinsLong)
        let (_, longV2) = h.viewer(extra: Self.joinsLong, version: .v2)
        let (driver, _) = h.viewer()
        let room = try #require(h.registry.room(named: "demo"))
        // A wheel burst at 4 inputs a frame period for 640 ms.
        let burst = WheelBurst(h, by: driver, count: 160, dy: 10, watching: long, in: room)
        var batchCounts: [Int] = []
        for (sink, version) in [(short, WireVersion.v1), (long, .v1), (longToo, .v1), (longV2, .v2)] {
            let client = try InputsStreamTests.StreamClient.following(sink, version)
            #expect(client.problems.isEmpty && client.changes == 160, "\(client.problems.prefix(3)) \(client.changes)")
            #expect(client.beatsChecked > 2)
            batchCounts.append(client.batches)
        }
        #expect(batchCounts[1] == batchCounts[2] && batchCounts[1] == batchCounts[3])
        #expect(batchCounts[0] >= 30 && batchCounts[1] * 4 <= batchCounts[0], "\(batchCounts)")
        // Apart from a batch a beat takes with it, the long period's batches leave 250 ms apart
        // (seen every 4 ms, when the test looks).
        let early = burst.early(within: 250 - 4 - room.pacer.timerSlack)
        #expect(early.isEmpty, "batches within 250 ms: \(early)")
        // Both long-period viewers of version 1 got the very same batches.
        let batchBytes = { (sink: RecordingViewerSink) in sink.received.filter { decodeJSON($0)["type"] as? String == "batch" }.map(\.bytes) }
        #expect(batchBytes(long) == batchBytes(longToo))
    }

    @Test func aLeavingViewerTakesItsPeriodWithItAndTheOthersGoOn() throws {
        let h = WireV2Tests.demoHarness()
        let (_, short) = h.viewer(extra: InputsStreamTests.joinsInputs)
        let (longID, _) = h.viewer(extra: Self.joinsLong)
        let (driver, _) = h.viewer()
        let room = try #require(h.registry.room(named: "demo"))
        h.input(1, t: 0, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: driver)
        #expect(room.inputsStream.periods == [0, 250])
        h.service.closed(longID)
        #expect(room.inputsStream.periods == [0])
        for i in 1..<20 {
            h.scheduler.advance(by: 8)
            h.input(UInt64(1 + i), t: Double(i) * 8, "wheel", #""dx":0,"dy":10,"mode":"pixel""#, from: driver)
        }
        h.scheduler.advance(by: 2000)
        let client = try InputsStreamTests.StreamClient.following(short, .v1)
        #expect(client.problems.isEmpty && client.changes == 20, "\(client.problems) \(client.changes)")
    }

    /// A slow drag of 3 s, an input every 8 ms, the room's timers firing up to 3 ms late (a busy
    /// machine): each batch of the 250 ms period leaves with a beat, in one go, and the beats stay
    /// 250 ms apart. Before, a batch whose period ended between frames left alone and its beat
    /// followed with the next frame: two writes to every viewer where one does.
    @Test func eachLongBatchInMotionLeavesWithABeat() throws {
        let h = WireV2Tests.demoHarness()
        let (_, long) = h.viewer(extra: Self.joinsLong)
        let (_, short) = h.viewer(extra: InputsStreamTests.joinsInputs)
        let (driver, frames) = h.viewer()
        let room = try #require(h.registry.room(named: "demo"))
        var arrivals: [(time: Double, type: String)] = []
        var random = SeededRandom(seed: 29)
        func note() {
            for message in long.received.dropFirst(arrivals.count) {
                arrivals.append((room.now, decodeJSON(message)["type"] as? String ?? "?"))
            }
        }
        func run(until end: Double) {
            while h.clock.now < end {
                h.clock.advance(by: Double.random(in: 0.5...3, using: &random))
                h.scheduler.runDue()
                note()
            }
        }
        let start = h.clock.now
        note()
        h.input(1, t: 0, "pointerDown", #""x":100,"y":700"#, from: driver)
        note()
        for i in 1...375 {
            run(until: start + Double(i) * 8)
            h.input(UInt64(1 + i), t: Double(i) * 8, "pointerMove", #""x":100,"y":\#(700 - i)"#, from: driver)
            note()
        }
        h.input(377, t: 3008, "pointerUp", #""x":100,"y":325"#, from: driver)
        note()
        run(until: start + 5000)
        for (sink, version) in [(long, WireVersion.v1), (short, .v1)] {
            let client = try InputsStreamTests.StreamClient.following(sink, version)
            #expect(client.problems.isEmpty && client.changes == 377, "\(client.problems.prefix(3)) \(client.changes)")
            #expect(client.beatsChecked >= 12, "\(client.beatsChecked)")
        }
        let batches = arrivals.indices.filter { arrivals[$0].type == "batch" }
        // With a beat in the same room turn (a presence may go between them: `announceDriver`).
        let alone = batches.filter { i in !arrivals.contains { $0 == (arrivals[i].time, "beat") } }
        #expect(batches.count >= 12 && alone.isEmpty, "\(batches.count) batches, alone at \(alone.map { arrivals[$0].time })")
        let beats = arrivals.filter { $0.type == "beat" }.map(\.time).dropFirst().dropLast()  // the join's and the rest's aside
        let gaps = zip(beats, beats.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 250 - room.pacer.timerSlack }, "\(gaps.filter { $0 < 249 })")
        #expect(frames.received.count > 200, "the frames viewer still gets its frames")
    }
}
