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
}
