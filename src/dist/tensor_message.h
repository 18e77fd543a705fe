// A tensor of any shape and dtype as point-to-point messages: a fixed-size i64 header (dtype, rank,
// sizes), then the values, both on the same tag (MPI keeps their order). Internal to dist: the
// differentiable send/recv pair and the pipeline's activations use it.
#pragma once

#include <vector>

#include "exadnn/dist/communicator.h"

namespace exadnn::dist::detail {

/// Largest rank a message can carry.
constexpr int64_t kMaxMessageDims = 8;

/// Starts sending `t` to `dst`; the returned Works keep the buffers alive until waited.
std::vector<Work> send_tensor_message(const Tensor& t, const Communicator& comm, int dst, int tag,
                                      const char* where);
/// Receives a tensor sent by send_tensor_message (blocks until it has arrived).
Tensor recv_tensor_message(const Communicator& comm, int src, int tag);

}  // namespace exadnn::dist::detail
