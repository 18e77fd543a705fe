// pairwise_reduce_scatter (pairwise_reduce_scatter.h): every block sent straight to the rank that
// sums it, the sum computed by exadnn's kernels once the messages are in.
#include "pairwise_reduce_scatter.h"

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "mpi_check.h"
#include "mpi_types.h"

namespace exadnn::dist::detail {
namespace {

// On the control duplicate, beside the liveness queries (tags 1 and 2, liveness.cpp).
constexpr int kBlockTag = 3;
constexpr int64_t kMinBlockBytes = 64 << 10;

}  // namespace

bool use_pairwise_reduce_scatter(int ranks, DType dtype, int64_t block_numel, bool is_sum) {
  if (!is_sum || ranks < 2 || (dtype != DType::f32 && dtype != DType::f64)) return false;
  return block_numel * static_cast<int64_t>(dtype_size(dtype)) >= kMinBlockBytes;
}

Work pairwise_reduce_scatter(const std::shared_ptr<CommState>& comm, Tensor out, Tensor input,
                             std::string what) {
  const int p = comm->size, rank = comm->rank;
  const int64_t n = out.numel();
  const Tensor in = input.view({p * n});  // contiguous (checked by the caller)
  const MPI_Datatype type = mpi_datatype(in.dtype());
  // Row row_of(q): block `rank` of rank q's input, for the P - 1 other ranks q.
  Tensor received = empty({p - 1, n}, TensorOptions().dtype(in.dtype()));
  const auto row_of = [rank](int q) { return q < rank ? q : q - 1; };
  auto w = std::make_shared<WorkState>();
  w->comm = comm;
  w->collective = ++comm->collectives_started;
  w->what = std::move(what);
  for (int q = 0; q < p; ++q) {
    if (q == rank) continue;
    w->requests.push_back(MPI_REQUEST_NULL);
    mpi_check(MPI_Irecv(received.narrow(0, row_of(q), 1).data_ptr(), static_cast<int>(n), type, q,
                        kBlockTag, comm->control, &w->requests.back()),
              "MPI_Irecv of a reduce_scatter block");
  }
  // Sends in the order rank + 1, rank + 2, ...: every rank starts with a different peer.
  for (int k = 1; k < p; ++k) {
    const int q = (rank + k) % p;
    w->requests.push_back(MPI_REQUEST_NULL);
    mpi_check(MPI_Isend(in.narrow(0, q * n, n).data_ptr(), static_cast<int>(n), type, q, kBlockTag,
                        comm->control, &w->requests.back()),
              "MPI_Isend of a reduce_scatter block");
  }
  w->keep_alive = {out, input, received};
  w->on_complete = [out, in, received, rank, n, p, row_of] {
    NoGradGuard no_grad;
    // The blocks summed in rank order, so the result does not depend on which rank sums.
    auto block = [&](int q) {
      return q == rank ? in.narrow(0, q * n, n) : received.narrow(0, row_of(q), 1).view({n});
    };
    const Tensor sum = out.view({n});
    copy_(sum, block(0));
    for (int q = 1; q < p; ++q) add_(sum, block(q));
  };
  return Work(std::move(w));
}

}  // namespace exadnn::dist::detail
