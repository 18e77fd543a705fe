// The C library's heap under a training loop: keep what a step frees for the next step.
//
// Memory that exadnn allocates goes through the MemoryManager's caching allocator, but libraries
// underneath it allocate per call: oneDNN's GEMM (dnnl_sgemm) takes its packing workspace from
// malloc on every call, a few hundred KiB. glibc serves it from the top of its heap and, when a
// later free leaves more than its trim threshold (128 KiB until its dynamic threshold moves) at
// the top, gives those pages back to the kernel, so the next step faults them in again: ~90
// page faults a step for the Fashion-MNIST CNN, which trains 12 % faster without them
// (docs/performance.md, "the C library's heap"). A program can tell malloc to keep freed memory; a
// library should not decide that for the program that links it, so this is a call for programs to
// make (the `exadnn` command makes it at start).
#pragma once

namespace exadnn {

/// Sets glibc's malloc to keep the memory a process frees for its own reuse: blocks up to 32 MiB
/// come from the heap (M_MMAP_THRESHOLD) and the heap is never trimmed (M_TRIM_THRESHOLD -1).
/// Freed memory is not returned to the kernel until the process ends, and blocks of 128 KiB to
/// 32 MiB that glibc used to map and unmap now live in the heap, so peak resident memory can grow
/// a little (measured: +2 MB for the Fashion-MNIST CNN, up to +10 MB for the wide MLP's 212 MB).
/// Returns whether it was applied: not when EXADNN_KEEP_FREED_MEMORY=0, not when the environment
/// already sets malloc's thresholds (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_,
/// MALLOC_TOP_PAD_ or a glibc.malloc tunable in GLIBC_TUNABLES: the user's choice stands), not with
/// a C library other than glibc.
bool keep_freed_host_memory();

}  // namespace exadnn
