// Which library runs f32 GEMM on the CPU, chosen once per process (internal to the CPU backend).
#pragma once

#include <string>

namespace exadnn::cpu {

/// A CPU GEMM implementation.
enum class GemmProvider { blas, onednn };

/// The provider for f32 GEMM: EXADNN_GEMM=blas|onednn|auto if set, else auto (oneDNN). oneDNN's
/// JIT picks its kernel from the instructions the CPU has; a distribution OpenBLAS may not
/// recognise a new processor and fall back to a kernel several times slower (Debian's 0.3.21
/// does, on Zen 4).
GemmProvider gemm_provider();
/// Whether oneDNN's two ways of running an f32 GEMM (dnnl_sgemm, its matmul primitive) are
/// chosen per problem by measuring (EXADNN_GEMM=auto or unset; gemm_routes.h) rather than by
/// a fixed rule (EXADNN_GEMM=onednn).
bool gemm_routes_measured();
const char* gemm_provider_name(GemmProvider p);
/// One line saying what was chosen and why, for runtime_info().
std::string gemm_provider_report();
/// True when exadnn must thread BLAS calls itself: OpenBLAS's pthread build (Debian's default),
/// whose own pool would spin beside OpenMP's and fight it for the cores, and OpenBLAS's serial
/// build. Its pool is then kept at one thread and exadnn splits each call over its OpenMP threads.
bool split_blas_over_openmp();
/// Sets the thread count of the BLAS library, whichever vendor it is (no-op if unknown); 1 when
/// split_blas_over_openmp().
void set_blas_threads(int n);
/// BLAS vendor and, for OpenBLAS, its configuration and detected core.
std::string blas_report();

}  // namespace exadnn::cpu
