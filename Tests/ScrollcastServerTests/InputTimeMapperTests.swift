import Testing
import ScrollEngine
@testable import ScrollcastRooms

@Suite("Client time → room time")
@RoomActor struct InputTimeMapperTests {
    @Test func keepsTheClientsIntervalsWithinAGesture() throws {
        var mapper = InputTimeMapper()
        let start = try mapper.map(clientTime: 5_000, now: 100, floor: 0, startsGesture: true)
        #expect(start == 100)
        // Events arrive late and bunched (network), but their own spacing is kept.
        let second = try mapper.map(clientTime: 5_016, now: 140, floor: start, startsGesture: false)
        let third = try mapper.map(clientTime: 5_032, now: 141, floor: second, startsGesture: false)
        #expect(second == 116)
        #expect(third == 132)
    }

    @Test func neverAheadOfNow() throws {
        var mapper = InputTimeMapper()
        _ = try mapper.map(clientTime: 0, now: 100, floor: 0, startsGesture: true)
        // The client claims 600 ms passed, only 50 ms did on the server.
        let t = try mapper.map(clientTime: 600, now: 150, floor: 100, startsGesture: false)
        #expect(t == 150)
        // Re-anchored there: the next interval is the client's again.
        let next = try mapper.map(clientTime: 616, now: 200, floor: t, startsGesture: false)
        #expect(next == 166)
    }

    @Test func neverBeforeWhatOthersAlreadyApplied() throws {
        var mapper = InputTimeMapper()
        _ = try mapper.map(clientTime: 0, now: 100, floor: 0, startsGesture: true)
        let t = try mapper.map(clientTime: 10, now: 200, floor: 180, startsGesture: false)
        #expect(t == 180)
    }

    @Test func lagIsBounded() throws {
        var mapper = InputTimeMapper(maxLag: 250)
        _ = try mapper.map(clientTime: 0, now: 0, floor: 0, startsGesture: true)
        let t = try mapper.map(clientTime: 10, now: 5_000, floor: 0, startsGesture: false)
        #expect(t == 4_750)
    }

    @Test func monotoneForAnyArrivalPattern() throws {
        var mapper = InputTimeMapper()
        var floor = 0.0
        var now = 0.0
        var client = 1_000.0
        // Deterministic pseudo-random jitter in arrival and client spacing.
        var state: UInt64 = 42
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 33) / Double(UInt32.max)
        }
        for i in 0..<2_000 {
            now += next() * 40
            client += next() * 60
            let t = try mapper.map(clientTime: client, now: now, floor: floor, startsGesture: i % 50 == 0)
            #expect(t >= floor)
            #expect(t <= now)
            floor = t
        }
    }

    @Test func clientTimeGoingBackwardsIsAnError() throws {
        var mapper = InputTimeMapper()
        _ = try mapper.map(clientTime: 100, now: 10, floor: 0, startsGesture: false)
        #expect(throws: InputTimeMapper.Failure.wentBackwards(previous: 100, got: 99)) {
            try mapper.map(clientTime: 99, now: 20, floor: 10, startsGesture: false)
        }
    }
}

@Suite("Rate limiting")
@RoomActor struct RateLimitTests {
    @Test func bucketAllowsTheBurstThenTheRate() {
        var bucket = TokenBucket(capacity: 120, ratePerSecond: 240, now: 0)
        var taken = 0
        for _ in 0..<120 where bucket.take(now: 0) { taken += 1 }
        #expect(taken == 120)
        let took1 = bucket.take(now: 0)
        #expect(!took1)
        let took2 = bucket.take(now: 1000.0 / 240)
        #expect(took2)
        let took3 = bucket.take(now: 1000.0 / 240)
        #expect(!took3)
        var refilled = 0
        for _ in 0..<200 where bucket.take(now: 10_000) { refilled += 1 }
        #expect(refilled == 120, "refills only up to capacity")
        let took4 = bucket.take(now: 10_000)
        #expect(!took4)
    }

    @Test func limiterRefusesThenDisconnects() {
        var limiter = InputRateLimiter(now: 0)
        var verdicts: [InputRateLimiter.Verdict] = []
        for _ in 0..<400 { verdicts.append(limiter.judge(now: 0)) }
        #expect(verdicts.prefix(120).allSatisfy { $0 == .accept })
        #expect(verdicts[120] == .refuse)
        #expect(verdicts.last == .disconnect)
    }
}
