// One NCCL communicator per dist::Communicator: made on the first cuda collective, bootstrapped
// through the communicator's MPI ranks, kept in its CommState and destroyed with it.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>

#include "exadnn/core/device.h"
#include "exadnn/dist/communicator.h"

namespace exadnn::dist::cuda {

/// Throws exadnn::Error("nccl", "<call> failed: <ncclGetErrorString> (<last error>)") unless
/// `status` is ncclSuccess; `comm` (may be null) adds NCCL's own description of the error.
void nccl_check(ncclResult_t status, const char* call, ncclComm_t comm = nullptr);

/// The NCCL communicator of a dist::Communicator's ranks, each on its own GPU, with the stream its
/// collectives run on (non-blocking with respect to the legacy default stream the CUDA backend
/// computes on, so backward keeps running while buckets are reduced).
class NcclComm {
 public:
  /// Collective over `comm`: rank 0 makes the unique id, an MPI broadcast over `comm` (with its
  /// timeout diagnosis) hands it to every rank, and each joins with cuda:`device` current.
  NcclComm(const Communicator& comm, int device);
  /// Destroys the communicator and stream, except at process exit (the driver frees them; the
  /// CUDA runtime may already be gone) or after abort().
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  ncclComm_t get() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  int device() const { return device_; }

  /// Throws if NCCL reported an asynchronous error for `what` (a network failure, a peer gone).
  void check_async(const std::string& what) const;
  /// Stops every operation in flight (after a timeout); later collectives on this communicator
  /// throw. Never throws.
  void abort() noexcept;
  /// Throws unless the communicator is usable (not aborted) for `what`.
  void check_usable(const std::string& what) const;

 private:
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
  bool aborted_ = false;
};

/// The NCCL communicator of `comm` for tensors on `device`, made (collectively) on first use. Every
/// cuda collective of one dist::Communicator must use the same GPU on a given rank.
std::shared_ptr<NcclComm> nccl_comm(const Communicator& comm, Device device);

}  // namespace exadnn::dist::cuda
