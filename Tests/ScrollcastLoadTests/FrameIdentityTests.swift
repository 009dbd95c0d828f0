import Testing
@testable import scrollcast_load

@Suite("The cross-node identity check")
struct FrameIdentityTests {
    private func hash(_ text: String) -> UInt64 {
        Array(text.utf8).withUnsafeBufferPointer(FNV1a64.hash)
    }

    @Test("FNV-1a 64 of the reference vectors")
    func fnv() {
        #expect(hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(hash("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test("a seq counts as checked once it reached a second node, once however many more nodes see it")
    func checkedOnce() {
        var ring = FrameIdentityRing(slots: 16)
        #expect(ring.record(seq: 7, hash: 1, node: 0) == .init())
        #expect(ring.record(seq: 7, hash: 1, node: 0) == .init(), "a second viewer on the same node checks nothing across nodes")
        #expect(ring.record(seq: 7, hash: 1, node: 2) == .init(checkedAcrossNodes: true))
        #expect(ring.record(seq: 7, hash: 1, node: 1) == .init())
        #expect(ring.record(seq: 7, hash: 1, node: 2) == .init())
    }

    @Test("different bytes for a seq are a mismatch naming the node that delivered the first ones, told once")
    func mismatch() {
        var ring = FrameIdentityRing(slots: 16)
        _ = ring.record(seq: 3, hash: 10, node: 1)
        #expect(ring.record(seq: 3, hash: 11, node: 2) == .init(checkedAcrossNodes: true, mismatchWith: 1))
        #expect(ring.record(seq: 3, hash: 12, node: 0) == .init())
        // Same node, different bytes: a mismatch too.
        _ = ring.record(seq: 4, hash: 20, node: 1)
        #expect(ring.record(seq: 4, hash: 21, node: 1) == .init(mismatchWith: 1))
    }

    @Test("a seq older than the ring holds is not compared; a newer one takes its slot")
    func bounded() {
        var ring = FrameIdentityRing(slots: 16)
        _ = ring.record(seq: 5, hash: 1, node: 0)
        _ = ring.record(seq: 21, hash: 2, node: 0)  // same slot (21 mod 16 = 5)
        #expect(ring.record(seq: 5, hash: 99, node: 1) == .init(), "too old: nothing counted, no false mismatch")
        #expect(ring.record(seq: 21, hash: 2, node: 1) == .init(checkedAcrossNodes: true))
    }

    @Test("256 slots a room until 64 MiB would not hold them, never under 16")
    func slots() {
        #expect(FrameIdentityRing.slots(rooms: 20) == 256)
        #expect(FrameIdentityRing.slots(rooms: 100_000) == 16)
        let many = FrameIdentityRing.slots(rooms: 20_000)
        #expect(many < 256 && many >= 16 && many & (many - 1) == 0)
    }
}
