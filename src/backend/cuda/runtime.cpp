// Device discovery, the report `exadnn info` prints, synchronisation and the TF32 opt-in.
#include <cudnn.h>
#include <nccl.h>

#include <sstream>

#include "cuda_check.h"
#include "exadnn/backend/cuda/cuda.h"
#include "exadnn/core/error.h"

namespace exadnn::cuda {

namespace {

thread_local bool t_tf32 = false;

// cudaGetDeviceCount's status, asked once (it initialises the runtime).
cudaError_t device_count_status(int* count) {
  static int n = 0;
  static const cudaError_t status = [] {
    const cudaError_t s = cudaGetDeviceCount(&n);
    if (s != cudaSuccess) {
      n = 0;
      cudaGetLastError();  // do not leave the error for the next launch check
    }
    return s;
  }();
  *count = n;
  return status;
}

}  // namespace

int device_count() noexcept {
  int n = 0;
  device_count_status(&n);
  return n;
}

std::string unavailable_reason() {
  int n = 0;
  const cudaError_t status = device_count_status(&n);
  if (status != cudaSuccess) return detail::cat("cudaGetDeviceCount: ", cudaGetErrorString(status));
  if (n == 0) return "cudaGetDeviceCount: no devices";
  return "";
}

std::string report() {
  std::ostringstream os;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  int nccl = 0;
  ncclGetVersion(&nccl);
  os << "CUDA: in this build (runtime " << runtime / 1000 << "." << (runtime % 1000) / 10
     << ", driver "
     << (driver ? std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10)
                : std::string("none"))
     << ", cuBLAS, cuDNN " << cudnnGetVersion() << ", NCCL " << nccl << ")\n";
  const int n = device_count();
  if (n == 0) {
    os << "CUDA devices: none visible (" << unavailable_reason() << ")\n";
    return os.str();
  }
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    os << "cuda:" << d << ": " << prop.name << ", sm_" << prop.major << prop.minor << ", "
       << prop.multiProcessorCount << " SMs, " << (prop.totalGlobalMem >> 20) << " MiB\n";
  }
  return os.str();
}

void synchronize(int device) {
  DeviceGuard guard(device);
  EXADNN_CUDA_CHECK(cudaDeviceSynchronize());
}

bool tf32_enabled() noexcept {
  return t_tf32;
}
void set_tf32_enabled(bool enabled) noexcept {
  t_tf32 = enabled;
}

}  // namespace exadnn::cuda

// The plugin's C entry for programs that load it on demand (exadnn::plugin_symbol): the report
// text, valid until the next call.
extern "C" const char* exadnn_cuda_report_text() {
  static std::string text;
  text = exadnn::cuda::report();
  return text.c_str();
}
