import Testing
import ScrollEngine
@testable import ScrollWire

/// Version 2's short `batch` (docs/protocol.md, "`batch` (`10`)"): its sizes, and that every
/// value, short form or not, decodes to the very double the room applied.
@Suite("Version 2 batch: short and exact")
struct BatchV2Tests {
    static func roundTrip(_ batch: BatchMessage) throws -> BatchMessage {
        var decoder = ServerMessageDecoderV2()
        guard case .message(.batch(let back)) = try decoder.decode(ServerMessageEncoderV2.batch(batch)) else {
            Issue.record("not a batch")
            return batch
        }
        return back
    }

    /// Every number of a batch as bits: == on doubles would take −0 for 0.
    static func bits(_ batch: BatchMessage) -> [UInt64] {
        var out = [batch.complete.bitPattern]
        for entry in batch.applied {
            out.append(entry.time.bitPattern)
            if case .input(.pointerMoved(let p)) = entry.change { out += [p.x.bitPattern, p.y.bitPattern] }
            if case .input(.wheel(let dx, let dy, _)) = entry.change { out += [dx.bitPattern, dy.bitPattern] }
            if case .rest(let offset) = entry.change { out.append(offset.bitPattern) }
        }
        return out
    }

    @Test("a one-move batch as a room sends it while someone drags is 22 bytes, and comes back as it was")
    func oneMoveSize() throws {
        let bytes = ServerMessageEncoderV2.batch(Fixtures.oneMoveBatch)
        print("one-move batch: \(bytes.count) bytes (version 2), \(ServerMessageEncoder.batch(Fixtures.oneMoveBatch).count) as JSON")
        #expect(bytes.count == 22)
        #expect(try Self.roundTrip(Fixtures.oneMoveBatch) == Fixtures.oneMoveBatch)
        // Known bad: the same time off the grid, as rooms stamped it before, takes its f64.
        var offGrid = Fixtures.oneMoveBatch
        offGrid.applied[0].time = 20417.581034
        offGrid.complete = BatchMessage.compactMark(20417.6128, after: 20417.581034)
        #expect(ServerMessageEncoderV2.batch(offGrid).count == 27)
    }

    @Test("numbers no short form gives (a third, −0, subnormals, huge, 2^-40 steps) come back bit for bit")
    func awkwardNumbersExact() throws {
        let awkward: [Double] = [0.1 + 0.2, 1.0 / 3, -0.0, 0, 5e-324, 1e-300, 1e300, -1e300, 120.0.nextUp, 120.0.nextDown,
                                 123.456789, 2.0 / 256 + 0x1p-40, Double(1 << 50) / 256, Double(1 << 51), -7.005, 187.43]
        var random = SeededRandom(seed: 29)
        var time = 1000.0
        var entries: [AppliedMessage] = []
        for (i, x) in awkward.enumerated() {
            // Times as a room's clock gives them: any double, some steps exact, some not.
            time += i % 3 == 0 ? 16.5 : Double.random(in: 0...20, using: &random)
            let y = awkward[(i * 7 + 3) % awkward.count]
            let change: AppliedChange = i % 4 == 3 ? .input(.wheel(dx: x, dy: y, mode: .pixel))
                : i % 5 == 4 ? .rest(offset: x) : .input(.pointerMoved(Point(x: x, y: y)))
            entries.append(AppliedMessage(after: UInt64(10 + i / 2), time: time, viewer: i % 6 == 5 ? "v9" : "v2", id: UInt64(i + 1),
                                          cause: i % 5 == 4 ? .state : .input, change: change))
        }
        let batch = BatchMessage(changes: 77, complete: time + 0.3, applied: entries)
        let back = try Self.roundTrip(batch)
        #expect(back == batch)
        #expect(Self.bits(back) == Self.bits(batch))
        // Random doubles in a pointer's range, as a browser at an odd zoom gives them.
        for _ in 0..<500 {
            let p = Point(x: Double.random(in: -500...1500, using: &random), y: Double.random(in: -1e-6...1e-6, using: &random))
            let move = BatchMessage(changes: 1, complete: 5, applied: [
                AppliedMessage(after: 0, time: 4, viewer: "v1", id: 1, cause: .input, change: .input(.pointerMoved(p)))])
            #expect(Self.bits(try Self.roundTrip(move)) == Self.bits(move))
        }
    }

    @Test("the lowered mark stays within 1/256 ms below the room's, never before the batch's last change, and takes a byte or two")
    func compactMark() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<1000 {
            let t = Double.random(in: 0...1e7, using: &random)
            let mark = t + Double.random(in: 0...40, using: &random)
            let lowered = BatchMessage.compactMark(mark, after: t)
            #expect(lowered <= mark && lowered >= t && mark - lowered < 1.0 / 256 + mark.ulp)
            let batch = BatchMessage(changes: 1, complete: lowered, applied: [
                AppliedMessage(after: 0, time: t, viewer: "v1", id: 1, cause: .input, change: .input(.pointerCancelled))])
            let noMark = BatchMessage(changes: 1, complete: 0, applied: batch.applied)
            let markBytes = ServerMessageEncoderV2.batch(batch).count - ServerMessageEncoderV2.batch(noMark).count + 1
            #expect(markBytes <= 3)
            #expect(try Self.roundTrip(batch).complete.bitPattern == lowered.bitPattern)
        }
        // A held input's mark may stand before its time: kept as it is.
        #expect(BatchMessage.compactMark(99.5, after: 100) == 99.5)
    }

    @Test("reserved number tags, an f64 head other than 2 and a first entry repeating a viewer are refused")
    func refusals() {
        let good = ServerMessageEncoderV2.batch(Fixtures.oneMoveBatch)
        var tag3 = good
        tag3[8] = 0x43 // the mark's num, tag 3
        var wideF64 = good
        wideF64[4] = 0x06 // t's head: tag 2 with a count
        var same = good
        same[9] |= 0x80
        for bytes in [tag3, wideF64, same] {
            var decoder = ServerMessageDecoderV2()
            #expect(throws: WireError.self) { try decoder.decode(bytes) }
        }
    }
}
