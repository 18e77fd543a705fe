// The cuda collectives over NCCL (libexadnn_dist_cuda), under mpirun: allreduce and broadcast of
// cuda tensors of every dtype NCCL carries, and DataParallel on a module that lives on a GPU
// giving the weights it gives on the CPU. Each rank uses cuda:(rank % GPUs); with no GPU, or fewer
// GPUs than ranks (NCCL puts one rank on each GPU), every case reports SKIPPED with the reason.
#include <string>
#include <vector>

#include "../dist_testing.h"
#include "devices.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/device_collectives.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;

// This rank's GPU, or the reason this rank count cannot run here ("" when it can).
std::string gpu_unavailable_reason(const Communicator& comm) {
  const std::string why = exadnn::testing::device_unavailable_reason(Device::cuda(0));
  if (!why.empty()) return why;
  const int gpus = exadnn::cuda::device_count();
  if (comm.size() > gpus)
    return exadnn::detail::cat(comm.size(), " ranks but ", gpus,
                               " GPU(s) visible; NCCL needs one GPU per rank");
  return "";
}

Device my_gpu(const Communicator& comm) {
  return Device::cuda(comm.rank() % exadnn::cuda::device_count());
}

#define SKIP_WITHOUT_GPUS(comm)                                   \
  do {                                                            \
    const std::string skip_reason = gpu_unavailable_reason(comm); \
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason;        \
  } while (0)

class NcclCollectivesTest : public ::testing::TestWithParam<DType> {
 protected:
  Communicator comm = Communicator::world();
};

TEST(NcclCollectives, ProviderIsRegistered) {
  EXPECT_NE(find_device_collectives(DeviceKind::cuda), nullptr);
}

TEST_P(NcclCollectivesTest, AllreduceSumMaxMin) {
  SKIP_WITHOUT_GPUS(comm);
  const DType dt = GetParam();
  const int r = comm.rank(), p = comm.size();
  const Device gpu = my_gpu(comm);
  Tensor t = full({3, 5}, r + 1, TensorOptions().dtype(dt).device(gpu));
  comm.allreduce(t).wait();
  EXPECT_EQ(t.device(), gpu);
  for (double v : values(t)) EXPECT_EQ(v, p * (p + 1) / 2) << dtype_name(dt);
  Tensor hi = full({7}, r + 1, TensorOptions().dtype(dt).device(gpu));
  Tensor lo = full({7}, r + 1, TensorOptions().dtype(dt).device(gpu));
  Work a = comm.allreduce(hi, ReduceOp::max), b = comm.allreduce(lo, ReduceOp::min);
  b.wait();
  a.wait();
  for (double v : values(hi)) EXPECT_EQ(v, p) << dtype_name(dt);
  for (double v : values(lo)) EXPECT_EQ(v, 1) << dtype_name(dt);
  Tensor blocking = full({1000}, 2, TensorOptions().dtype(dt).device(gpu));
  comm.allreduce_blocking(blocking, ReduceOp::product);
  for (double v : values(blocking)) EXPECT_EQ(v, 1 << p) << dtype_name(dt);
}

TEST_P(NcclCollectivesTest, BroadcastFromEveryRoot) {
  SKIP_WITHOUT_GPUS(comm);
  const DType dt = GetParam();
  for (int root = 0; root < comm.size(); ++root) {
    Tensor t = full({4, 3}, comm.rank() + 10, TensorOptions().dtype(dt).device(my_gpu(comm)));
    comm.broadcast(t, root).wait();
    for (double v : values(t)) EXPECT_EQ(v, root + 10) << dtype_name(dt) << " root " << root;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, NcclCollectivesTest,
                         ::testing::Values(DType::f32, DType::f64, DType::f16, DType::bf16,
                                           DType::i32, DType::i64, DType::u8),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(NcclCollectives, ResultFollowsTheProducersOnTheDefaultStream) {
  Communicator comm = Communicator::world();
  SKIP_WITHOUT_GPUS(comm);
  // The allreduce must see the values the queued kernels write, and later kernels its result.
  Tensor t = zeros({1 << 20}, TensorOptions().device(my_gpu(comm)));
  for (int i = 0; i < 8; ++i) add_(t, ones_like(t));
  comm.allreduce(t).wait();
  mul_(t, 0.5);
  const std::vector<double> v = values(t);
  EXPECT_EQ(v.front(), 4.0 * comm.size());
  EXPECT_EQ(v.back(), 4.0 * comm.size());
}

using testing::same_weights;
// Trains `model` for `steps` SGD steps on rows [begin, begin + count) of the fixed batch, which is
// moved to the model's device.
void train(nn::Module& model, Device device, int64_t begin, int64_t count, int steps) {
  testing::train_on_fixed_batch(model, begin, count, steps, device);
}

TEST(NcclCollectives, DataParallelOnGpuMatchesCpu) {
  Communicator comm = Communicator::world();
  SKIP_WITHOUT_GPUS(comm);
  const Device gpu = my_gpu(comm);
  const int64_t shard = 12 / comm.size();
  // Rank 0's weights everywhere after the wrap (broadcast over NCCL), whatever each rank drew.
  auto on_gpu = testing::small_mlp(comm.rank() == 0 ? 1 : comm.rank() + 100);
  on_gpu->to(gpu);
  auto on_cpu = testing::small_mlp();
  DataParallel gpu_ddp(*on_gpu, comm, ReducerOptions().first_bucket_bytes(256).bucket_bytes(512));
  DataParallel cpu_ddp(*on_cpu, comm);
  EXPECT_GT(gpu_ddp.reducer().num_buckets(), 1u);
  EXPECT_TRUE(same_weights(*on_gpu, *on_cpu, 0));
  train(*on_gpu, gpu, comm.rank() * shard, shard, 10);
  train(*on_cpu, Device::cpu(), comm.rank() * shard, shard, 10);
  for (const Tensor& p : on_gpu->parameters()) {
    EXPECT_EQ(p.device(), gpu);
    EXPECT_EQ(p.grad().device(), gpu);  // a view into a bucket on the GPU
  }
  const double rtol = exadnn::testing::tolerance_for(DType::f32).rtol;
  EXPECT_TRUE(same_weights(*on_gpu, *on_cpu, rtol));
  // And one process on the whole batch, on the CPU.
  auto reference = testing::small_mlp();
  train(*reference, Device::cpu(), 0, 12, 10);
  EXPECT_TRUE(same_weights(*on_gpu, *reference, rtol));
}

}  // namespace
}  // namespace exadnn::dist
