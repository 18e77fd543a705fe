// Device collectives: how a Communicator reduces and broadcasts tensors that live on a device
// other than the CPU. exadnn_dist itself moves host memory over MPI; a provider library registers
// the collectives for one device kind when it loads (exadnn_dist_cuda: cuda tensors over NCCL,
// bootstrapped through the communicator's MPI ranks). Communicator::allreduce, broadcast and
// allreduce_blocking route a non-CPU tensor to the provider of its device kind, and throw an
// Error naming the library to link when there is none.
//
// A provider numbers its collectives like the MPI ones (they share the communicator's count, so a
// timed-out wait names the ranks that never arrived) and returns a Work whose completion it polls.
#pragma once

#include <memory>

#include "exadnn/core/device.h"
#include "exadnn/core/tensor.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/dist/work.h"

namespace exadnn::dist {

/// The collectives of one device kind. Tensors are contiguous and on that kind of device; every
/// rank calls the same collectives in the same order, as for the MPI ones.
class DeviceCollectives {
 public:
  virtual ~DeviceCollectives() = default;

  /// In place: every rank's `t` becomes the reduction over all ranks (non-blocking).
  virtual Work allreduce(const Communicator& comm, Tensor t, ReduceOp op) = 0;
  /// The same, returning once `t` holds the result (Work::wait's timeout applies).
  virtual void allreduce_blocking(const Communicator& comm, Tensor t, ReduceOp op) = 0;
  /// In place: every rank's `t` becomes root's (non-blocking).
  virtual Work broadcast(const Communicator& comm, Tensor t, int root) = 0;
};

/// Makes `provider` the collectives of `kind` (replacing any earlier one). Called by a provider
/// library's static registrar when it loads; `kind` must not be the CPU.
void register_device_collectives(DeviceKind kind, std::unique_ptr<DeviceCollectives> provider);

/// The collectives registered for `kind`, or nullptr when no loaded library provides them.
DeviceCollectives* find_device_collectives(DeviceKind kind) noexcept;

/// The collectives for `kind`, or an Error for dist::`op` naming the library that provides them
/// ("no collectives for device kind cuda: link exadnn_dist_cuda (NCCL)").
DeviceCollectives& device_collectives(DeviceKind kind, const char* op);

}  // namespace exadnn::dist
