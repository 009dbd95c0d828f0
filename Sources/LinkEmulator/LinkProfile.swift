/// What an emulated link does to the bytes crossing it, in each direction on its own
/// (docs/links.md): a one-way delay plus uniform jitter, occasional stalls (a lost segment
/// costs a retransmission, so the whole direction waits), and a bandwidth cap.
public struct LinkProfile: Sendable, Equatable {
    /// The profile's name as given to `--profile` (or "custom" once overridden).
    public var name: String
    /// Fixed one-way delay, milliseconds.
    public var delayMs: Double
    /// Extra one-way delay, uniform in 0 … jitterMs, drawn per chunk (order is kept regardless).
    public var jitterMs: Double
    /// Probability that a chunk is held for `stallMs` (and everything behind it in that direction).
    public var stallProbability: Double
    /// How long a stall holds its direction, milliseconds.
    public var stallMs: Double
    /// Bandwidth cap per direction in Mbit/s (10^6 bits); nil: no cap.
    public var rateMbit: Double?

    public init(name: String, delayMs: Double = 0, jitterMs: Double = 0, stallProbability: Double = 0,
                stallMs: Double = 200, rateMbit: Double? = nil) {
        self.name = name
        self.delayMs = delayMs
        self.jitterMs = jitterMs
        self.stallProbability = stallProbability
        self.stallMs = stallMs
        self.rateMbit = rateMbit
    }

    /// Pass-through: bytes are forwarded as soon as they are read.
    public static let loopback = LinkProfile(name: "loopback")
    /// A wired local network: 1 ms + 0–1 ms.
    public static let lan = LinkProfile(name: "lan", delayMs: 1, jitterMs: 1)
    /// Cable or fibre to a nearby data centre: 15 ms + 0–5 ms.
    public static let broadband = LinkProfile(name: "broadband", delayMs: 15, jitterMs: 5)
    /// A good 4G link: 40 ms + 0–20 ms, 0.5 % stalls of 200 ms, 10 Mbit/s.
    public static let fourG = LinkProfile(name: "4g", delayMs: 40, jitterMs: 20, stallProbability: 0.005, rateMbit: 10)
    /// A crowded Wi-Fi: 20 ms + 0–60 ms, 2 % stalls of 200 ms.
    public static let badWifi = LinkProfile(name: "bad-wifi", delayMs: 20, jitterMs: 60, stallProbability: 0.02)

    /// Every named profile, mildest first.
    public static let all: [LinkProfile] = [.loopback, .lan, .broadband, .fourG, .badWifi]

    /// The named profile, or nil for an unknown name.
    public static func named(_ name: String) -> LinkProfile? {
        all.first { $0.name == name }
    }

    /// True when nothing is delayed: bytes go straight through without a schedule.
    public var isPassThrough: Bool {
        delayMs == 0 && jitterMs == 0 && stallProbability == 0 && rateMbit == nil
    }

    /// Why the profile cannot be used, or nil when every value is in range.
    public var problem: String? {
        if !(delayMs >= 0 && delayMs <= 60_000) { return "delay must be 0 … 60000 ms" }
        if !(jitterMs >= 0 && jitterMs <= 60_000) { return "jitter must be 0 … 60000 ms" }
        if !(stallProbability >= 0 && stallProbability <= 1) { return "stall probability must be 0 … 1" }
        if !(stallMs >= 0 && stallMs <= 60_000) { return "stall length must be 0 … 60000 ms" }
        if let rateMbit, !(rateMbit >= 0.01 && rateMbit <= 100_000) { return "rate must be 0.01 … 100000 Mbit/s" }
        return nil
    }

    /// One line for logs and reports, e.g. "4g (40 ms + 0–20 ms, 0.5 % stalls of 200 ms, 10 Mbit/s)".
    public var summary: String {
        if isPassThrough { return "\(name) (pass-through)" }
        var parts = ["\(Self.format(delayMs)) ms + 0–\(Self.format(jitterMs)) ms"]
        if stallProbability > 0 {
            parts.append("\(Self.format(stallProbability * 100)) % stalls of \(Self.format(stallMs)) ms")
        }
        if let rateMbit { parts.append("\(Self.format(rateMbit)) Mbit/s") }
        return "\(name) (\(parts.joined(separator: ", ")))"
    }

    /// Whole numbers without a decimal point, others with up to three decimals.
    static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
