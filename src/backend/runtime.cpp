#include "exadnn/backend/runtime.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <atomic>
#include <sstream>

#include "cpu/gemm_provider.h"
#include "exadnn/core/error.h"
#include "exadnn/core/memory_manager.h"

namespace exadnn {

namespace {
std::atomic<int> g_threads{0};
}  // namespace

void set_num_threads(int n) {
  EXADNN_CHECK(n >= 1, "set_num_threads", "thread count must be at least 1, got ", n);
  omp_set_num_threads(n);  // exadnn's loops and oneDNN (OpenMP runtime)
  cpu::set_blas_threads(n);
  g_threads = n;
}

int get_num_threads() {
  const int n = g_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

const char* version() {
  return EXADNN_VERSION_STRING;
}

std::string runtime_info() {
  std::ostringstream os;
  const dnnl_version_t* dv = dnnl_version();
  os << "exadnn " << version() << "\n"
     << "threads: " << get_num_threads() << " (OpenMP, BLAS and oneDNN share this count)\n"
     << cpu::blas_report() << "\n"
     << "oneDNN: " << dv->major << "." << dv->minor << "." << dv->patch
     << (dv->cpu_runtime == DNNL_RUNTIME_OMP ? " (OpenMP runtime)\n" : " (non-OpenMP runtime)\n")
     << cpu::gemm_provider_report() << "\n"
     << "memory kinds:";
  for (int k = 0; k < kMemoryKindCount; ++k) {
    const auto kind = static_cast<MemoryKind>(k);
    os << " " << memory_kind_name(kind)
       << (MemoryManager::instance().available(kind) ? ""
                                                     : " (unavailable: no CUDA backend loaded)");
    if (k + 1 < kMemoryKindCount) os << ",";
  }
  os << "\n";
  return os.str();
}

}  // namespace exadnn
