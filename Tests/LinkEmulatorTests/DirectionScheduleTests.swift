import Testing
@testable import LinkEmulator

/// The link's model on its own (docs/links.md): no sockets, a seeded generator, exact numbers.
@Suite struct DirectionScheduleTests {
    private func schedule(_ profile: LinkProfile, seed: UInt64 = 1) -> DirectionSchedule {
        DirectionSchedule(profile: profile, seed: seed, connection: 1, direction: 0)
    }

    @Test func delaysAreTheDelayPlusUniformJitter() {
        var link = schedule(LinkProfile(name: "t", delayMs: 40, jitterMs: 20))
        // Chunks a second apart: keeping order never holds one back.
        let extra = (0..<4000).map { index -> Double in
            let now = UInt64(index) * 1_000_000_000
            return Double(link.release(bytes: 100, now: now).at - now) / 1e6 - 40
        }
        #expect(extra.allSatisfy { $0 >= 0 && $0 < 20 })
        let mean = extra.reduce(0, +) / Double(extra.count)
        #expect(abs(mean - 10) < 0.5)
        // Uniform: each fifth of the range holds about a fifth of the chunks.
        for fifth in 0..<5 {
            let share = Double(extra.filter { Int($0 / 4) == fifth }.count) / Double(extra.count)
            #expect(abs(share - 0.2) < 0.03)
        }
    }

    @Test func releasesNeverOvertakeEachOther() {
        var link = schedule(.badWifi)
        var last: UInt64 = 0
        for index in 0..<10_000 {
            let release = link.release(bytes: 100, now: UInt64(index) * 1_000_000).at
            #expect(release >= last)
            last = release
        }
    }

    @Test func stallsComeAtTheirProbabilityAndHoldForTheirLength() {
        var link = schedule(LinkProfile(name: "t", delayMs: 10, stallProbability: 0.02, stallMs: 200))
        var stalls = 0
        for index in 0..<50_000 {
            let now = UInt64(index) * 1_000_000_000
            let release = link.release(bytes: 10, now: now)
            if release.stalled {
                stalls += 1
                #expect(release.at - now == 210_000_000)
            }
        }
        // 1000 expected; Poisson's 4 sigma is about 126.
        #expect(abs(stalls - 1000) < 130)
    }

    @Test func theCapSerialisesBytesAtTheRate() {
        // 8 Mbit/s: 1,000 bytes take 1 ms on the wire.
        var link = schedule(LinkProfile(name: "t", rateMbit: 8))
        let releases = (0..<10).map { _ in link.release(bytes: 1_000, now: 0).at }
        #expect(releases == (1...10).map { UInt64($0) * 1_000_000 })
    }

    @Test func theSameSeedGivesTheSameDelays() {
        var first = schedule(.fourG, seed: 9)
        var second = schedule(.fourG, seed: 9)
        var other = schedule(.fourG, seed: 10)
        let a = (0..<100).map { first.release(bytes: 10, now: UInt64($0) * 100_000_000).at }
        let b = (0..<100).map { second.release(bytes: 10, now: UInt64($0) * 100_000_000).at }
        let c = (0..<100).map { other.release(bytes: 10, now: UInt64($0) * 100_000_000).at }
        #expect(a == b && a != c)
    }
}

@Suite struct LinkProfileTests {
    @Test func theNamedProfilesAreTheDocumentedOnes() {
        #expect(LinkProfile.all.map(\.name) == ["loopback", "lan", "broadband", "4g", "bad-wifi"])
        #expect(LinkProfile.named("4g")?.summary == "4g (40 ms + 0–20 ms, 0.5 % stalls of 200 ms, 10 Mbit/s)")
        #expect(LinkProfile.named("bad-wifi")?.summary == "bad-wifi (20 ms + 0–60 ms, 2 % stalls of 200 ms)")
        #expect(LinkProfile.loopback.isPassThrough && !LinkProfile.lan.isPassThrough)
        #expect(LinkProfile.named("5g") == nil)
    }

    @Test func numbersAreFormattedAsJSONNumbers() {
        #expect(LinkProfile.format(0.0004) == "0" && LinkProfile.format(1.9996) == "2")
        #expect(LinkProfile.format(0.005) == "0.005" && LinkProfile.format(12.5) == "12.5" && LinkProfile.format(40) == "40")
    }

    @Test func outOfRangeValuesAreNamed() {
        #expect(LinkProfile(name: "t", stallProbability: 1.5).problem == "stall probability must be 0 … 1")
        #expect(LinkProfile(name: "t", rateMbit: 0).problem == "rate must be 0.01 … 100000 Mbit/s")
        #expect(LinkProfile(name: "t", delayMs: .nan).problem == "delay must be 0 … 60000 ms")
        #expect(LinkProfile.fourG.problem == nil)
    }

    @Test func addressesParseHostAndPort() {
        #expect(LinkAddress(parsing: "127.0.0.1:8080") == LinkAddress(host: "127.0.0.1", port: 8080))
        #expect(LinkAddress(parsing: "[::1]:0") == LinkAddress(host: "::1", port: 0))
        #expect(LinkAddress(parsing: "nowhere") == nil && LinkAddress(parsing: "h:70000") == nil && LinkAddress(parsing: ":80") == nil)
    }
}

@Suite struct TimingHistogramTests {
    @Test func percentilesAreWithinThreePercent() {
        var histogram = TimingHistogram()
        for value in 1...10_000 { histogram.record(microseconds: UInt64(value)) }
        #expect(histogram.count == 10_000 && histogram.maxMicroseconds == 10_000)
        let p50 = Double(histogram.percentile(0.5))
        let p99 = Double(histogram.percentile(0.99))
        #expect(abs(p50 - 5_000) / 5_000 < 0.03)
        #expect(abs(p99 - 9_900) / 9_900 < 0.03)
        #expect(TimingHistogram().percentile(0.5) == 0)
    }

    @Test func smallValuesAreExact() {
        var histogram = TimingHistogram()
        for value in [3, 3, 7, 63] { histogram.record(microseconds: UInt64(value)) }
        #expect(histogram.percentile(0.5) == 3 && histogram.percentile(0.75) == 7 && histogram.percentile(1) == 63)
    }
}
