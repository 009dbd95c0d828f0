import ScrollEngine

/// The hash a `beat` carries of the room's frame at its time (docs/protocol.md, "The inputs
/// stream"): FNV-1a 64 over the frame as a version-2 viewer with an empty texts table would
/// receive it, `seq` and `sentAt` set to 0 — the `texts` message that frame brings, then the
/// `frame` message. Every text the frame shows is in those bytes, numbered by first appearance,
/// so the hash depends on the frame alone, not on which frames a room or a replica encoded before.
/// FNV-1a because the WebAssembly build computes it in a few instructions a byte, with no tables;
/// 64 bits make a chance match of two different frames about 1 in 10^19 per beat. It guards
/// against divergence, not an adversary (a page only checks itself).
public enum FrameHash {
    /// FNV-1a, 64 bits.
    public static func fnv1a64(_ bytes: [UInt8], into hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var h = hash
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    /// The hash of `frame` naming `input`, as defined above.
    public static func of(_ frame: EffectFrame, input: AppliedInput?) -> UInt64 {
        var canonical = frame
        canonical.sequence = 0
        var table = WireTextTable()
        let encoded = ServerMessageEncoderV2.frame(canonical, input: input, sentAt: 0, texts: &table)
        return fnv1a64(encoded.frame, into: fnv1a64(encoded.texts ?? []))
    }
}
