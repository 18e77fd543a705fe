// Device collectives routing, in a program that links no provider: a tensor on a device whose
// collectives are not registered is refused with an error naming the library to link, and the
// reducer refuses parameters spread over devices. (The collectives themselves on cuda tensors
// are tests/dist/cuda.)
#include "exadnn/dist/device_collectives.h"

#include <vector>

#include "exadnn/dist/reducer.h"
#include "testing.h"

namespace exadnn::dist {
namespace {

// A tensor labelled cuda:0 over host memory: routing looks only at the label, and no CUDA backend
// is needed to make it. Its memory is never touched.
Tensor labelled_cuda(std::vector<float>& memory) {
  return from_blob(memory.data(), {static_cast<int64_t>(memory.size())}, DType::f32, {},
                   Device::cuda(0));
}

// The message of the Error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceCollectives, UnregisteredKindIsAClearError) {
  if (find_device_collectives(DeviceKind::cuda) != nullptr)
    GTEST_SKIP() << "this program loaded a provider of cuda collectives";
  Communicator comm = Communicator::world();
  std::vector<float> memory(4, 1.0f);
  Tensor t = labelled_cuda(memory);
  const std::string want = "no collectives for device kind cuda: link exadnn_dist_cuda (NCCL)";
  const std::string allreduce = error_of([&] { comm.allreduce(t).wait(); });
  EXPECT_NE(allreduce.find("dist::allreduce"), std::string::npos) << allreduce;
  EXPECT_NE(allreduce.find(want), std::string::npos) << allreduce;
  const std::string blocking = error_of([&] { comm.allreduce_blocking(t); });
  EXPECT_NE(blocking.find(want), std::string::npos) << blocking;
  const std::string broadcast = error_of([&] { comm.broadcast(t, 0).wait(); });
  EXPECT_NE(broadcast.find("dist::broadcast"), std::string::npos) << broadcast;
  EXPECT_NE(broadcast.find(want), std::string::npos) << broadcast;
  // Collectives only MPI provides name what device tensors may use instead.
  const std::string send = error_of([&] { comm.send(t, 0).wait(); });
  EXPECT_NE(send.find("allreduce and broadcast only"), std::string::npos) << send;
  // Nothing was started: the communicator still works.
  Tensor host = ones({2});
  comm.allreduce(host).wait();
  EXPECT_EQ(exadnn::testing::values(host), (std::vector<double>(2, comm.size())));
}

TEST(DeviceCollectives, CpuHasNoProviderSlot) {
  const std::string m = error_of([] { register_device_collectives(DeviceKind::cpu, nullptr); });
  EXPECT_NE(m.find("exadnn_dist's own"), std::string::npos) << m;
}

TEST(DeviceCollectives, ReducerRefusesParametersOnTwoDevices) {
  Communicator comm = Communicator::world();
  std::vector<float> memory(4, 0.0f);
  Tensor on_cpu = zeros({3}).requires_grad_();
  Tensor on_cuda = labelled_cuda(memory).requires_grad_();
  const std::string m = error_of([&] { GradientReducer reducer({on_cpu, on_cuda}, comm); });
  EXPECT_NE(m.find("parameter 0 is on cpu but parameter 1 is on cuda:0"), std::string::npos) << m;
}

}  // namespace
}  // namespace exadnn::dist
