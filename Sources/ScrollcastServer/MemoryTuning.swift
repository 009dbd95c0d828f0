#if canImport(Glibc)
import Glibc
#endif

/// Process-wide allocator settings that keep the server's memory proportional to its viewers.
enum MemoryTuning {
    /// Buffers this large or larger come straight from the kernel and go back to it when freed.
    static let mmapThresholdBytes: Int32 = 16 * 1024
    /// `M_MMAP_THRESHOLD` from glibc's <malloc.h>, which the Glibc module does not export.
    private static let mallocOptionMmapThreshold: Int32 = -3

    /// Every join encodes a snapshot (scene, row order, latest frame) that lives until that
    /// viewer's socket has taken it. glibc serves such blocks from its heap by default, and once a
    /// burst of joins has freed them the heap stays fragmented: the ladder's RSS per viewer stayed
    /// high after a ramp. Above the threshold glibc maps and unmaps them instead, which costs two
    /// system calls per snapshot (per join, not per frame). Protocol version 2's snapshot of the
    /// demo is far smaller than version 1's (texts once, row ids as one-byte deltas), and under a
    /// 32 KiB threshold it came from the heap again, hence 16 KiB; frames stay far below it. The
    /// figures: bench/where-the-time-goes.md §3. Calling it again is harmless.
    static func returnLargeBuffersToTheSystem() {
        #if canImport(Glibc)
        _ = glibcMallopt(mallocOptionMmapThreshold, mmapThresholdBytes)
        #endif
    }
}

#if canImport(Glibc)
/// glibc's `int mallopt(int param, int value)`; <malloc.h> is not part of the Glibc module.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
