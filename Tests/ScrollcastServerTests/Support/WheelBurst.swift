import ScrollcastServerTesting
@testable import ScrollcastRooms

/// What a viewer of the inputs stream received during a wheel burst, with the room time the
/// test saw each message at: the batches' spacing (InputsStreamTests, BatchPeriodTests).
@RoomActor struct WheelBurst {
    var arrivals: [(time: Double, type: String)] = []

    /// `count` wheel inputs of `dy` by `driver`, 4 ms apart (4 a frame period), then 2 s more;
    /// `sink` is looked at every 4 ms.
    init(_ h: Harness, by driver: ViewerID, count: Int, dy: Int, watching sink: RecordingViewerSink, in room: Room) {
        var arrivals: [(time: Double, type: String)] = []
        func note() {
            for message in sink.received.dropFirst(arrivals.count) {
                arrivals.append((room.now, decodeJSON(message)["type"] as? String ?? "?"))
            }
        }
        for i in 0..<count {
            h.input(UInt64(1 + i), t: Double(i) * 4, "wheel", #""dx":0,"dy":\#(dy),"mode":"pixel""#, from: driver)
            note()
            h.scheduler.advance(by: 4)
            note()
        }
        h.scheduler.advance(by: 2000)
        note()
        self.arrivals = arrivals
    }

    /// The indices of the batches.
    var batches: [Int] { arrivals.indices.filter { arrivals[$0].type == "batch" } }

    /// Pairs of batches less than `period` apart where the second was not a beat's (a beat takes
    /// what waits with it).
    func early(within period: Double) -> [(Int, Int)] {
        zip(batches, batches.dropFirst()).filter { previous, next in
            arrivals[next].time - arrivals[previous].time < period
                && arrivals.indices.contains(next + 1) && arrivals[next + 1].type != "beat"
        }
    }
}
