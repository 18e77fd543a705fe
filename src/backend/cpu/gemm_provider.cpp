#include "gemm_provider.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string_view>

#include "exadnn/core/error.h"

namespace exadnn::cpu {

namespace {

// BLAS vendor extensions are looked up at run time so any CBLAS library links.
template <class Fn>
Fn* blas_symbol(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_DEFAULT, name));
}

// EXADNN_GEMM unset, empty or "auto".
bool automatic() {
  const char* env = std::getenv("EXADNN_GEMM");
  return env == nullptr || std::string_view(env) == "auto" || std::string_view(env).empty();
}

GemmProvider choose() {
  if (automatic()) return GemmProvider::onednn;
  const char* env = std::getenv("EXADNN_GEMM");
  const std::string_view v(env);
  if (v == "blas") return GemmProvider::blas;
  if (v == "onednn") return GemmProvider::onednn;
  throw Error("EXADNN_GEMM",
              detail::cat("unknown GEMM provider '", v, "' (expected auto, blas or onednn)"));
}

}  // namespace

GemmProvider gemm_provider() {
  static const GemmProvider provider = choose();
  return provider;
}

bool gemm_routes_measured() {
  static const bool measured = gemm_provider() == GemmProvider::onednn && automatic();
  return measured;
}

const char* gemm_provider_name(GemmProvider p) {
  return p == GemmProvider::blas ? "BLAS (cblas_sgemm)" : "oneDNN (dnnl_sgemm)";
}

std::string gemm_provider_report() {
  const char* env = std::getenv("EXADNN_GEMM");
  return detail::cat("f32 GEMM: ", gemm_provider_name(gemm_provider()),
                     gemm_routes_measured() ? " or its matmul primitive, measured per problem"
                                            : (gemm_provider() == GemmProvider::onednn
                                                   ? " or its matmul primitive, by a fixed rule"
                                                   : ""),
                     env ? detail::cat(" (EXADNN_GEMM=", env, ")")
                         : std::string(" (default; EXADNN_GEMM=blas|onednn overrides)"));
}

bool split_blas_over_openmp() {
  static const bool own_pool = [] {
    auto* parallel = blas_symbol<int()>("openblas_get_parallel");  // 0 serial, 1 pthreads, 2 OpenMP
    return parallel != nullptr && parallel() != 2;
  }();
  return own_pool;
}

void set_blas_threads(int n) {
  if (split_blas_over_openmp()) n = 1;
  if (auto* f = blas_symbol<void(int)>("openblas_set_num_threads")) f(n);
  if (auto* f = blas_symbol<void(int)>("MKL_Set_Num_Threads")) f(n);
  if (auto* f = blas_symbol<void(int)>("bli_thread_set_num_threads")) f(n);
}

std::string blas_report() {
  std::string out = "BLAS: " EXADNN_BLAS_VENDOR;
  if (auto* config = blas_symbol<char*()>("openblas_get_config"))
    out += detail::cat(" [", config(), "]");
  if (auto* core = blas_symbol<char*()>("openblas_get_corename"))
    out += detail::cat(", OpenBLAS core '", core(), "'");
  if (split_blas_over_openmp())
    out += "; exadnn threads BLAS calls over OpenMP (OpenBLAS's own pool kept at 1 thread)";
  return out;
}

}  // namespace exadnn::cpu
