// The CUDA backend's entry point: a static registrar that runs when libexadnn_cuda is loaded and
// fills the MemoryManager's device/pinned/managed kinds and the cuda row of the dispatch table.
// Registration makes no CUDA call, so loading the library on a machine without a GPU (or
// without a driver) is harmless: the first allocation or kernel reports why it cannot run.
#include <cstdio>
#include <exception>

#include "register.h"

namespace exadnn::cuda {

namespace {

void register_backend() {
  KernelRegistry& r = KernelRegistry::instance();
  register_memory_backends();
  register_elementwise_kernels(r);
  register_reduce_kernels(r);
  register_optim_kernels(r);
  register_gemm_kernels(r);
  register_nn_kernels(r);
}

struct Registrar {
  Registrar() {
    try {
      register_backend();
    } catch (const std::exception& e) {  // nothing can catch an exception from a static init
      std::fprintf(stderr, "exadnn: registering the CUDA backend failed: %s\n", e.what());
    }
  }
};

const Registrar registrar;

}  // namespace

}  // namespace exadnn::cuda
