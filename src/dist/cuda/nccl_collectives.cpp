// The cuda row of the device collectives (dist/device_collectives.h): allreduce and broadcast of
// cuda tensors over NCCL, registered by a static registrar when libexadnn_dist_cuda loads.
//
// Ordering: the CUDA backend computes on the legacy default stream (backend/cuda/memory.cpp), so
// an event recorded there marks the moment the tensor's producers are done; the NCCL call runs
// on the communicator's own stream after that event, and a second event, polled by Work::test,
// marks its completion. Work::wait's timeout applies (the peers are diagnosed over MPI as for any
// collective); on a timeout the NCCL communicator is aborted.
#include <climits>
#include <cstdio>
#include <exception>
#include <memory>

#include "backend/cuda/cuda_check.h"
#include "dist/comm_state.h"
#include "exadnn/dist/device_collectives.h"
#include "nccl_comm.h"

namespace exadnn::dist::cuda {

namespace {

ncclDataType_t nccl_type(DType dtype, const char* op) {
  switch (dtype) {
    case DType::f32:
      return ncclFloat32;
    case DType::f64:
      return ncclFloat64;
    case DType::f16:
      return ncclFloat16;
    case DType::bf16:
      return ncclBfloat16;
    case DType::i32:
      return ncclInt32;
    case DType::i64:
      return ncclInt64;
    case DType::u8:
    case DType::boolean:  // bytes; reductions of bool are refused by the caller
      return ncclUint8;
  }
  throw Error(exadnn::detail::cat("dist::", op),
              exadnn::detail::cat("NCCL has no type for dtype ", dtype_name(dtype)));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return ncclSum;
    case ReduceOp::product:
      return ncclProd;
    case ReduceOp::max:
      return ncclMax;
    case ReduceOp::min:
      return ncclMin;
  }
  throw Error("dist::allreduce", "unknown ReduceOp");
}

// An event the completion poll owns (destroyed with the Work's state).
struct Event {
  cudaEvent_t event = nullptr;
  explicit Event(int device) {
    exadnn::cuda::DeviceGuard guard(device);
    EXADNN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  }
  ~Event() { cudaEventDestroy(event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// Starts `call(nccl)` on the NCCL stream of `comm` after the work queued so far on the default
// stream, and returns the numbered Work that polls its completion.
template <class Call>
Work launch(const Communicator& comm, const char* op, const Tensor& t, Call&& call) {
  const std::string where = exadnn::detail::cat("dist::", op);
  EXADNN_CHECK(t.is_contiguous(), where, "tensor of shape ", t.shape(),
               " is not contiguous; call .contiguous() first");
  std::shared_ptr<NcclComm> nccl = nccl_comm(comm, t.device());
  nccl->check_usable(where);
  const std::shared_ptr<detail::CommState>& state = comm.state();

  auto w = std::make_shared<detail::WorkState>();
  w->comm = state;
  w->collective = ++state->collectives_started;
  w->what = exadnn::detail::cat(op, " #", w->collective, " (", t.numel(), " ",
                                dtype_name(t.dtype()), " on ", t.device().str(), ", NCCL)");
  w->keep_alive = {t};

  exadnn::cuda::DeviceGuard guard(nccl->device());
  Event ready(nccl->device());
  auto done = std::make_shared<Event>(nccl->device());
  EXADNN_CUDA_CHECK(cudaEventRecord(ready.event, nullptr));  // the backend's default stream
  EXADNN_CUDA_CHECK(cudaStreamWaitEvent(nccl->stream(), ready.event, 0));
  call(*nccl);
  EXADNN_CUDA_CHECK(cudaEventRecord(done->event, nccl->stream()));

  w->poll = [nccl, done, what = w->what] {
    nccl->check_usable(what);  // aborted after a timeout: the result is not there
    const cudaError_t status = cudaEventQuery(done->event);
    if (status == cudaSuccess) return true;
    if (status != cudaErrorNotReady) exadnn::cuda::check(status, "cudaEventQuery");
    nccl->check_async(what);
    return false;
  };
  w->on_timeout = [nccl] { nccl->abort(); };
  return Work(std::move(w));
}

size_t element_count(const Tensor& t) {
  return static_cast<size_t>(t.numel());
}

class NcclCollectives final : public DeviceCollectives {
 public:
  Work allreduce(const Communicator& comm, Tensor t, ReduceOp op) override {
    EXADNN_CHECK(t.dtype() != DType::boolean, "dist::allreduce",
                 "reductions of bool tensors are not defined; cast to u8 or i32");
    const ncclDataType_t type = nccl_type(t.dtype(), "allreduce");
    const ncclRedOp_t rop = nccl_op(op);
    return launch(comm, "allreduce", t, [&](NcclComm& nccl) {
      nccl_check(ncclAllReduce(t.data_ptr(), t.data_ptr(), element_count(t), type, rop, nccl.get(),
                               nccl.stream()),
                 "ncclAllReduce", nccl.get());
    });
  }

  void allreduce_blocking(const Communicator& comm, Tensor t, ReduceOp op) override {
    // NCCL has no faster blocking variant: start it and wait (with the timeout diagnosis).
    allreduce(comm, std::move(t), op).wait();
  }

  Work broadcast(const Communicator& comm, Tensor t, int root) override {
    const ncclDataType_t type = nccl_type(t.dtype(), "broadcast");
    return launch(comm, "broadcast", t, [&](NcclComm& nccl) {
      nccl_check(ncclBroadcast(t.data_ptr(), t.data_ptr(), element_count(t), type, root, nccl.get(),
                               nccl.stream()),
                 "ncclBroadcast", nccl.get());
    });
  }
};

struct Registrar {
  Registrar() {
    try {  // makes no CUDA or NCCL call: loading on a machine without a GPU is harmless
      register_device_collectives(DeviceKind::cuda, std::make_unique<NcclCollectives>());
    } catch (const std::exception& e) {  // nothing can catch an exception from a static init
      std::fprintf(stderr, "exadnn: registering the NCCL collectives failed: %s\n", e.what());
    }
  }
};

const Registrar registrar;

}  // namespace

}  // namespace exadnn::dist::cuda
