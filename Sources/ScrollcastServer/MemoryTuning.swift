#if canImport(Glibc)
import Glibc
#endif

/// Process-wide allocator settings that keep the server's memory proportional to its viewers.
enum MemoryTuning {
    /// Buffers this large or larger come straight from the kernel and go back to it when freed.
    static let mmapThresholdBytes: Int32 = 16 * 1024
    /// `M_MMAP_THRESHOLD` from glibc's <malloc.h>, which the Glibc module does not export.
    private static let mallocOptionMmapThreshold: Int32 = -3

    /// Every join encodes a snapshot of about 50 KiB (scene, row order, latest frame) that lives
    /// until that viewer's socket has taken it. glibc serves such blocks from its heap by default,
    /// and once a burst of joins has freed them the heap stays fragmented: in the ladder the RSS
    /// stayed ~45 KiB per viewer after a 2000-viewer ramp. Above the threshold glibc maps and
    /// unmaps them instead, which costs two system calls per snapshot (per join, not per frame)
    /// and left ~16 KiB per viewer. Protocol version 2's snapshot of the demo is about 23 KiB
    /// (texts once, row ids as one-byte deltas): under a 32 KiB threshold it came from the heap
    /// again and left 16–21 KiB per v2 viewer against 10 for v1 after a 2010-viewer ramp, hence
    /// 16 KiB. Frames (about 110 bytes in v2, 1.8 KiB in v1) stay far below it. Calling it again
    /// is harmless.
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
