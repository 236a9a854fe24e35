import CAllocator

/// How the allocator serves this process, set before a command runs. glibc by default gives
/// every thread that allocates an arena of its own and keeps freed memory up to a moving
/// threshold: a first upload of 10,000 notes peaked at 98 MB of RSS with 29 MB of heap in use
/// (heaptrack). Two arenas, and freed memory above 128 KiB handed back, took that to 82 MB and
/// a new device's 77 MB to 68 MB, at the same speed (docs/performance.md).
enum AllocatorSettings {
    static func apply() {
        vs_allocator_keep_little()
    }
}
