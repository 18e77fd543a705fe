// Tensors moving to a device and back, memory kinds and the MemoryManager's statistics.
#include "device_test_util.h"

namespace exadnn {
namespace {

using devtest::DeviceTest;

class DeviceMemory : public DeviceTest {};

TEST_P(DeviceMemory, RoundTripKeepsEveryDtypeBitForBit) {
  const Tensor base = devtest::uniform({3, 5}, 1, -300.0, 300.0);
  for (DType dtype : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64,
                      DType::u8, DType::boolean}) {
    const Tensor host = base.to(dtype);
    const Tensor there = host.to(device());
    EXPECT_EQ(there.device(), device());
    EXPECT_EQ(there.shape(), host.shape());
    EXPECT_TRUE(testing::all_close(there.to(Device::cpu()), host)) << dtype_name(dtype);
  }
}

TEST_P(DeviceMemory, StridedSourcesArriveDense) {
  const Tensor host = devtest::uniform({4, 6}, 2);
  const Tensor transposed = host.t().to(device());
  if (!device().is_cpu()) EXPECT_TRUE(transposed.is_contiguous());  // to(cpu) is a no-op on cpu
  EXPECT_TRUE(testing::all_close(transposed, host.t().contiguous()));
  // A strided view on the device copied densely there, then back.
  const Tensor narrowed = host.to(device()).narrow(1, 1, 3).t().contiguous();
  EXPECT_TRUE(testing::all_close(narrowed, host.narrow(1, 1, 3).t().contiguous()));
}

TEST_P(DeviceMemory, FactoriesFillOnTheDevice) {
  const Tensor z = zeros({2, 3}, TensorOptions().device(device()));
  const Tensor f = full({4}, 2.5, TensorOptions(DType::f64).device(device()));
  EXPECT_EQ(z.device(), device());
  EXPECT_EQ(testing::values(z), std::vector<double>(6, 0.0));
  EXPECT_EQ(testing::values(f), std::vector<double>(4, 2.5));
  EXPECT_DOUBLE_EQ(ones({1}, TensorOptions().device(device())).item<double>(), 1.0);
}

TEST_P(DeviceMemory, GradientsFlowBackThroughTo) {
  Tensor x = devtest::uniform({3}, 3).requires_grad_();
  const Tensor y = mul(x.to(device()), x.to(device()));
  sum(y).backward();
  EXPECT_EQ(x.grad().device(), Device::cpu());
  EXPECT_TRUE(testing::all_close(x.grad(), mul(x.detach(), scalar_tensor(2.0))));
}

TEST_P(DeviceMemory, DeviceBlocksAreCachedAndCounted) {
  const MemoryKind kind = device().is_cpu() ? MemoryKind::host : MemoryKind::device;
  MemoryManager& mm = MemoryManager::instance();
  const MemoryStats before = mm.stats(kind);
  {
    const Tensor t = zeros({1024}, TensorOptions().device(device()));
    EXPECT_GE(mm.stats(kind).live_blocks, before.live_blocks + 1);
  }
  const Tensor again = zeros({1024}, TensorOptions().device(device()));
  EXPECT_GE(mm.stats(kind).cache_hits, before.cache_hits + 1);
}

EXADNN_INSTANTIATE_DEVICE_TEST(DeviceMemory);

// Pinned and managed memory exist only with CUDA.
TEST(CudaMemoryKinds, PinnedAndManagedTensorsCopyEveryWay) {
  EXADNN_SKIP_IF_UNAVAILABLE(Device::cuda(0));
  const Tensor host = devtest::uniform({257}, 4);
  const Tensor pinned = empty(host.shape(), TensorOptions().memory(MemoryKind::pinned));
  copy_(pinned, host);  // a CPU kernel on pinned memory
  EXPECT_EQ(pinned.memory_kind(), MemoryKind::pinned);
  const Tensor dev = pinned.to(Device::cuda(0));
  const Tensor managed =
      empty(host.shape(), TensorOptions().device(Device::cuda(0)).memory(MemoryKind::managed));
  MemoryManager::instance().copy(managed.data_ptr(), MemoryKind::managed, dev.data_ptr(),
                                 MemoryKind::device, dev.nbytes());
  EXPECT_TRUE(testing::all_close(managed.to(Device::cpu()), host));
  MemoryManager::instance().memset(managed.data_ptr(), MemoryKind::managed, 0, managed.nbytes());
  EXPECT_EQ(testing::values(managed), std::vector<double>(257, 0.0));
}

}  // namespace
}  // namespace exadnn

namespace exadnn {
namespace {

// Runs everywhere: a device the process cannot use is an error that says why.
TEST(CudaMemoryKinds, UnusableDevicesAreErrorsThatSayWhy) {
#ifdef EXADNN_HAS_CUDA
  const int count = cuda::device_count();
  if (count == 0) {
    EXPECT_EXADNN_ERROR(zeros({2}, TensorOptions().device(Device::cuda(0))), "cuda:0",
                        "is not available", cuda::unavailable_reason());
  }
  EXPECT_EXADNN_ERROR(ones({2}).to(Device::cuda(count)), "cuda:" + std::to_string(count));
#else
  EXPECT_EXADNN_ERROR(zeros({2}, TensorOptions().device(Device::cuda(0))), "no CUDA backend");
#endif
}

}  // namespace
}  // namespace exadnn
