// EXADNN_VECTOR_CLONES: builds a loop function for AVX-512, AVX2 and the library's baseline
// x86-64 target (GCC's target_clones; the dynamic loader picks one when the library loads), for
// the loops that must vectorise but that the baseline (SSE2) leaves narrow or scalar.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EXADNN_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EXADNN_VECTOR_CLONES
#endif
