// The CUDA backend is a plugin: CPU work maps no CUDA library (the `exadnn` command mapped
// cudart, cuBLAS, cuBLASLt, cuDNN and NCCL at start when it linked the backend), and the first
// device allocation loads it — or, in a build without it, says so naming the plugin. Each test
// runs in its own process (gtest_discover_tests), so one's loading does not leak into another.
#include <gtest/gtest.h>

#include <string>

#include "exadnn/exadnn.h"
#include "testing.h"

namespace exadnn {
namespace {

// The CUDA libraries mapped into this process, one per line ("" when none).
std::string cuda_libraries_mapped() {
  return testing::libraries_mapped(
      {"libexadnn_cuda", "libcudart", "libcublas", "libcudnn", "libnccl"});
}

TEST(CudaPlugin, CpuTrainingStepMapsNoCudaLibrary) {
  // One SGD step of a linear layer on the CPU: forward, loss, backward, update.
  Tensor w = randn({8, 4});
  w.requires_grad_();
  const Tensor x = randn({16, 8});
  const Tensor y = matmul(x, w);
  const Tensor loss = mean(y * y);
  loss.backward();
  ASSERT_TRUE(w.grad().defined());
  w.data<float>()[0] -= 0.1f * w.grad().data<float>()[0];
  EXPECT_EQ(cuda_libraries_mapped(), "");
}

TEST(CudaPlugin, TheFirstDeviceAllocationLoadsTheBackend) {
  try {
    void* p = MemoryManager::instance().allocate(MemoryKind::device, 256, 0);
    MemoryManager::instance().deallocate(MemoryKind::device, p, 256, 0);  // a GPU is visible
  } catch (const Error& e) {
    const std::string what = e.what();
#ifdef EXADNN_CUDA_PLUGIN_BUILT
    EXPECT_EQ(what.find("no CUDA backend"), std::string::npos) << what;  // loaded: no GPU here
#else
    EXPECT_NE(what.find("libexadnn_cuda.so.0 was not found"), std::string::npos) << what;
#endif
  }
#ifdef EXADNN_CUDA_PLUGIN_BUILT
  EXPECT_NE(cuda_libraries_mapped().find("libexadnn_cuda"), std::string::npos);
  EXPECT_TRUE(MemoryManager::instance().available(MemoryKind::device));
#else
  EXPECT_EQ(cuda_libraries_mapped(), "");
#endif
}

}  // namespace
}  // namespace exadnn
