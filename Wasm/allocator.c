// The module's memory allocator, in place of wasi-libc's dlmalloc (docs/wasm.md, "Size"). The
// Embedded Swift runtime asks for memory only through posix_memalign and free, so defining
// those two here keeps dlmalloc (about 10 KB of code, 4 KB gzipped) out of the link. In C, not
// Swift: Swift reserves the name `free` for its runtime.
//
// Why so simple an allocator is sound here: one replica runs a steady loop (apply an input,
// encode a frame) whose allocations are arrays, strings and dictionary storage of a few
// recurring sizes. Blocks come in power-of-two size classes; a freed block goes onto its
// class's free list and is handed out again for the next request of that class, never split or
// merged. So the heap stays at the peak of each class's simultaneously live blocks, and a block
// wastes less than half of itself plus its 16-byte header. The heap only grows, from the
// linker's __heap_base by memory.grow (wasi-libc's sbrk takes whole pages only): WebAssembly
// memory cannot shrink anyway. The page runs the module on one thread.
#include <stddef.h>
#include <stdint.h>

// wasi-libc's errno values, declared here so no libc headers are needed.
enum { EINVAL = 28, ENOMEM = 48 };
// Where the linker's data and stack end and the heap may start.
extern unsigned char __heap_base;

enum {
    HEADER = 16,     // before every block; keeps user pointers 16-byte aligned
    SMALLEST = 32,   // class k holds SMALLEST << k bytes, header included
    CLASSES = 26,    // up to 1 GiB, beyond any request the limit below lets through
};

static void *free_lists[CLASSES];
static uintptr_t heap_end;  // 0 until the first block

static int size_class(size_t total) {
    int k = 0;
    while (((size_t)SMALLEST << k) < total) k++;
    return k;
}

// count bytes (a multiple of 16) from the end of the heap; NULL when memory cannot grow.
static char *grow(size_t count) {
    enum { PAGE = 65536 };
    if (!heap_end) heap_end = ((uintptr_t)&__heap_base + 15) & ~(uintptr_t)15;
    uintptr_t start = heap_end;
    if (count > UINTPTR_MAX - start) return NULL;
    uintptr_t end = start + count;
    uintptr_t have = (uintptr_t)__builtin_wasm_memory_size(0) * PAGE;
    if (end > have && __builtin_wasm_memory_grow(0, (end - have + PAGE - 1) / PAGE) == (size_t)-1) return NULL;
    heap_end = end;
    return (char *)start;
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    // An alignment above the header's is met by sliding the user pointer forward.
    size_t extra = alignment > HEADER ? alignment : 0;
    if (size >= ((size_t)1 << 30) - HEADER - extra) return ENOMEM;
    int k = size_class(HEADER + extra + size);
    char *block = free_lists[k];
    if (block) {
        free_lists[k] = *(void **)block;
    } else if (!(block = grow((size_t)SMALLEST << k))) {
        return ENOMEM;
    }
    uintptr_t user = ((uintptr_t)block + HEADER + alignment - 1) & ~(uintptr_t)(alignment - 1);
    // Just before the user pointer: where the block starts and its class.
    ((void **)user)[-2] = block;
    ((int32_t *)user)[-1] = k;
    *result = (void *)user;
    return 0;
}

void free(void *pointer) {
    if (!pointer) return;
    char *block = ((void **)pointer)[-2];
    int k = ((int32_t *)pointer)[-1];
    *(void **)block = free_lists[k];
    free_lists[k] = block;
}
