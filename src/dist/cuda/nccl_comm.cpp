// The NCCL communicator of a dist::Communicator: bootstrap through MPI, status checks, abort.
#include "nccl_comm.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "backend/cuda/cuda_check.h"
#include "dist/comm_state.h"
#include "exadnn/core/error.h"
#include "exadnn/ops/factories.h"

namespace exadnn::dist::cuda {

namespace {

// Set by an atexit handler registered once the first communicator exists (so it runs before the
// static destructors of the dist communicators made earlier and of the CUDA runtime): past it,
// NCCL objects are left to the driver instead of destroyed while CUDA is being torn down.
std::atomic<bool> process_exiting{false};

void note_process_exit() {
  process_exiting = true;
}

// "ncclAllReduce(...)" -> "ncclAllReduce": errors name the function, not its arguments.
std::string call_name(const char* call) {
  std::string s(call);
  const auto paren = s.find('(');
  return paren == std::string::npos ? s : s.substr(0, paren);
}

}  // namespace

void nccl_check(ncclResult_t status, const char* call, ncclComm_t comm) {
  if (status == ncclSuccess) return;
  std::string message =
      exadnn::detail::cat(call_name(call), " failed: ", ncclGetErrorString(status));
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') message += exadnn::detail::cat(" (", last, ")");
  throw Error("nccl", message);
}

NcclComm::NcclComm(const Communicator& comm, int device) : device_(device) {
  static const bool registered = [] { return std::atexit(&note_process_exit) == 0; }();
  (void)registered;
  exadnn::cuda::DeviceGuard guard(device);
  // The id travels as bytes through the communicator's own (timed, diagnosed) MPI broadcast.
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (comm.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  Tensor bytes = from_blob(&id, {static_cast<int64_t>(sizeof(id))}, DType::u8);
  comm.broadcast(bytes, 0).wait();
  nccl_check(ncclCommInitRank(&comm_, comm.size(), id, comm.rank()), "ncclCommInitRank");
  const cudaError_t status = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  if (status != cudaSuccess) {
    ncclCommDestroy(comm_);
    EXADNN_CUDA_CHECK(status);
  }
}

NcclComm::~NcclComm() {
  if (process_exiting) return;
  if (!aborted_) ncclCommDestroy(comm_);
  cudaStreamDestroy(stream_);
}

void NcclComm::check_async(const std::string& what) const {
  ncclResult_t async = ncclSuccess;
  nccl_check(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError", comm_);
  if (async == ncclSuccess || async == ncclInProgress) return;
  throw Error("nccl", exadnn::detail::cat(what, " failed: ", ncclGetErrorString(async), " (",
                                          ncclGetLastError(comm_), ")"));
}

void NcclComm::abort() noexcept {
  if (aborted_) return;
  aborted_ = true;
  ncclCommAbort(comm_);
}

void NcclComm::check_usable(const std::string& what) const {
  EXADNN_CHECK(!aborted_, "nccl", what,
               ": the NCCL communicator was aborted after a timed-out collective; make a new "
               "dist::Communicator (split or from_mpi) to continue");
}

std::shared_ptr<NcclComm> nccl_comm(const Communicator& comm, Device device) {
  std::shared_ptr<void>& slot = comm.state()->device_state[static_cast<size_t>(DeviceKind::cuda)];
  if (!slot) slot = std::make_shared<NcclComm>(comm, device.index);
  auto nccl = std::static_pointer_cast<NcclComm>(slot);
  EXADNN_CHECK(nccl->device() == device.index, "dist (nccl)", "a tensor on ", device.str(),
               ", but this communicator's NCCL communicator is on cuda:", nccl->device(),
               " (each rank uses one GPU per communicator; split the communicator for another)");
  return nccl;
}

}  // namespace exadnn::dist::cuda
