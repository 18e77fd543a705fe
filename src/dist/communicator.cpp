#include "exadnn/dist/communicator.h"

#include <climits>
#include <mutex>

#include "comm_state.h"
#include "exadnn/dist/device_collectives.h"
#include "exadnn/dist/environment.h"
#include "exadnn/dist/mpi_interop.h"
#include "mpi_check.h"
#include "mpi_types.h"
#include "pairwise_reduce_scatter.h"

namespace exadnn::dist {

namespace {

// The element count MPI takes (an int), after checking `t` can be handed to MPI as it is.
int checked_count(const Tensor& t, const char* op) {
  EXADNN_CHECK(t.defined(), exadnn::detail::cat("dist::", op), "tensor is undefined");
  EXADNN_CHECK(t.is_contiguous(), exadnn::detail::cat("dist::", op), "tensor of shape ", t.shape(),
               " is not contiguous; call .contiguous() first");
  EXADNN_CHECK(t.device().is_cpu(), exadnn::detail::cat("dist::", op), "tensor is on ",
               t.device().str(),
               "; exadnn's MPI collectives take host (or pinned) memory (device tensors: allreduce "
               "and broadcast only)");
  EXADNN_CHECK(t.numel() <= INT_MAX, exadnn::detail::cat("dist::", op), "tensor of ", t.numel(),
               " elements is larger than one MPI message can carry (", INT_MAX, ")");
  return static_cast<int>(t.numel());
}

// True when `t` lives on a device whose registered collectives (not MPI) must move it.
bool on_device(const Tensor& t) {
  return t.defined() && !t.device().is_cpu();
}

std::string describe(const char* op, uint64_t collective, const Tensor& t) {
  return collective ? exadnn::detail::cat(op, " #", collective, " (", t.numel(), " ",
                                          dtype_name(t.dtype()), ")")
                    : exadnn::detail::cat(op, " (", t.numel(), " ", dtype_name(t.dtype()), ")");
}

}  // namespace

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::product:
      return "product";
    case ReduceOp::max:
      return "max";
    case ReduceOp::min:
      return "min";
  }
  return "?";
}

Communicator::Communicator(std::shared_ptr<detail::CommState> state) : state_(std::move(state)) {}

Communicator Communicator::world() {
  ensure_mpi_initialized();
  static std::mutex mutex;
  static std::shared_ptr<detail::CommState> world;
  std::lock_guard lock(mutex);
  if (!world) world = std::make_shared<detail::CommState>(MPI_COMM_WORLD);
  return Communicator(world);
}

Communicator from_mpi(MPI_Comm comm) {
  EXADNN_CHECK(mpi_is_initialized(), "dist::from_mpi", "MPI is not initialised");
  EXADNN_CHECK(comm != MPI_COMM_NULL, "dist::from_mpi", "MPI_COMM_NULL is not a communicator");
  return Communicator(std::make_shared<detail::CommState>(comm));
}

MPI_Comm native_handle(const Communicator& comm) {
  return comm.state()->data;
}

int Communicator::rank() const {
  return state_->rank;
}
int Communicator::size() const {
  return state_->size;
}

std::chrono::milliseconds Communicator::timeout() const {
  return state_->timeout;
}
void Communicator::set_timeout(std::chrono::milliseconds timeout) {
  EXADNN_CHECK(timeout.count() > 0, "dist::Communicator", "timeout must be positive");
  state_->timeout = timeout;
}

Communicator Communicator::split(int color, int key) const {
  MPI_Comm part = MPI_COMM_NULL;
  detail::mpi_check(MPI_Comm_split(state_->data, color, key, &part), "MPI_Comm_split");
  ++state_->collectives_started;
  auto state = std::make_shared<detail::CommState>(part);
  detail::mpi_check(MPI_Comm_free(&part), "MPI_Comm_free");
  state->timeout = state_->timeout;
  return Communicator(std::move(state));
}

namespace {
// Registers a started operation; `start` issues its MPI request with the MPI function `call`.
template <class Start>
Work launch(const std::shared_ptr<detail::CommState>& comm, std::string what, bool collective,
            std::vector<Tensor> tensors, const char* call, Start&& start,
            std::function<void(const std::vector<MPI_Status>&)> check_status = nullptr) {
  auto w = std::make_shared<detail::WorkState>();
  w->check_status = std::move(check_status);
  w->comm = comm;
  if (collective) w->collective = ++comm->collectives_started;
  w->what = std::move(what);
  w->keep_alive = std::move(tensors);
  w->requests.push_back(MPI_REQUEST_NULL);
  const int rc = start(&w->requests[0]);
  if (rc != MPI_SUCCESS) detail::throw_mpi_error(rc, exadnn::detail::cat(call, " of ", w->what));
  return Work(std::move(w));
}

void check_root(int root, int size, const char* op) {
  EXADNN_CHECK(root >= 0 && root < size, exadnn::detail::cat("dist::", op), "root ", root,
               " is not a rank of this communicator of ", size);
}
}  // namespace

Work Communicator::allreduce(Tensor t, ReduceOp op) const {
  if (on_device(t)) return device_collectives(t.device().kind, "allreduce").allreduce(*this, t, op);
  const int n = checked_count(t, "allreduce");
  const MPI_Op mop = detail::mpi_op(op, t.dtype());
  const uint64_t next = state_->collectives_started + 1;
  return launch(state_, describe("allreduce", next, t), true, {t}, "MPI_Iallreduce",
                [&](MPI_Request* r) {
                  return MPI_Iallreduce(MPI_IN_PLACE, t.data_ptr(), n,
                                        detail::mpi_datatype(t.dtype()), mop, state_->data, r);
                });
}

void Communicator::allreduce_blocking(Tensor t, ReduceOp op) const {
  if (on_device(t))
    return device_collectives(t.device().kind, "allreduce").allreduce_blocking(*this, t, op);
  // Never MPI_Allreduce: a rank that stops inside it (SIGSTOP, a hung node) would hang every
  // peer forever. The non-blocking call's wait is bounded by the timeout and names the rank.
  allreduce(std::move(t), op).wait();
}

Work Communicator::broadcast(Tensor t, int root) const {
  if (on_device(t)) {
    check_root(root, size(), "broadcast");
    return device_collectives(t.device().kind, "broadcast").broadcast(*this, t, root);
  }
  const int n = checked_count(t, "broadcast");
  check_root(root, size(), "broadcast");
  const uint64_t next = state_->collectives_started + 1;
  return launch(
      state_, describe("broadcast", next, t), true, {t}, "MPI_Ibcast", [&](MPI_Request* r) {
        return MPI_Ibcast(t.data_ptr(), n, detail::mpi_datatype(t.dtype()), root, state_->data, r);
      });
}

Work Communicator::allgather(Tensor out, Tensor in) const {
  const int n = checked_count(in, "allgather");
  checked_count(out, "allgather");
  EXADNN_CHECK(out.dtype() == in.dtype() && out.numel() == in.numel() * size(), "dist::allgather",
               "output must hold ", size(), " × ", in.numel(), " ", dtype_name(in.dtype()),
               " elements, got ", out.numel(), " ", dtype_name(out.dtype()));
  const uint64_t next = state_->collectives_started + 1;
  const MPI_Datatype type = detail::mpi_datatype(in.dtype());
  return launch(state_, describe("allgather", next, in), true, {out, in}, "MPI_Iallgather",
                [&](MPI_Request* r) {
                  return MPI_Iallgather(in.data_ptr(), n, type, out.data_ptr(), n, type,
                                        state_->data, r);
                });
}

Work Communicator::reduce_scatter(Tensor out, Tensor in, ReduceOp op) const {
  const int n = checked_count(out, "reduce_scatter");
  checked_count(in, "reduce_scatter");
  EXADNN_CHECK(out.dtype() == in.dtype() && in.numel() == out.numel() * size(),
               "dist::reduce_scatter", "input must hold ", size(), " blocks of the output's ",
               out.numel(), " ", dtype_name(out.dtype()), " elements, got ", in.numel(), " ",
               dtype_name(in.dtype()));
  const uint64_t next = state_->collectives_started + 1;
  if (detail::use_pairwise_reduce_scatter(size(), in.dtype(), n, op == ReduceOp::sum))
    return detail::pairwise_reduce_scatter(state_, out, in, describe("reduce_scatter", next, in));
  const MPI_Op mop = detail::mpi_op(op, in.dtype());
  return launch(state_, describe("reduce_scatter", next, in), true, {out, in},
                "MPI_Ireduce_scatter_block", [&](MPI_Request* r) {
                  return MPI_Ireduce_scatter_block(in.data_ptr(), out.data_ptr(), n,
                                                   detail::mpi_datatype(in.dtype()), mop,
                                                   state_->data, r);
                });
}

Work Communicator::reduce(Tensor t, int root, ReduceOp op) const {
  const int n = checked_count(t, "reduce");
  check_root(root, size(), "reduce");
  const MPI_Op mop = detail::mpi_op(op, t.dtype());
  const uint64_t next = state_->collectives_started + 1;
  const bool is_root = rank() == root;
  return launch(state_, describe("reduce", next, t), true, {t}, "MPI_Ireduce", [&](MPI_Request* r) {
    return MPI_Ireduce(is_root ? MPI_IN_PLACE : t.data_ptr(), is_root ? t.data_ptr() : nullptr, n,
                       detail::mpi_datatype(t.dtype()), mop, root, state_->data, r);
  });
}

Work Communicator::send(Tensor t, int dst, int tag) const {
  const int n = checked_count(t, "send");
  check_root(dst, size(), "send");
  EXADNN_CHECK(tag >= 0, "dist::send", "tag must be >= 0, got ", tag);
  return launch(state_, describe("send", 0, t) + exadnn::detail::cat(" to rank ", dst), false, {t},
                "MPI_Isend", [&](MPI_Request* r) {
                  return MPI_Isend(t.data_ptr(), n, detail::mpi_datatype(t.dtype()), dst, tag,
                                   state_->data, r);
                });
}

Work Communicator::recv(Tensor t, int src, int tag) const {
  const int n = checked_count(t, "recv");
  check_root(src, size(), "recv");
  EXADNN_CHECK(tag >= 0, "dist::recv", "tag must be >= 0, got ", tag);
  const MPI_Datatype type = detail::mpi_datatype(t.dtype());
  std::string what = describe("recv", 0, t) + exadnn::detail::cat(" from rank ", src);
  // A shorter message than the tensor is an error too (MPI reports only longer ones).
  auto check_count = [n, type, what](const std::vector<MPI_Status>& statuses) {
    int count = 0;
    detail::mpi_check(MPI_Get_count(&statuses[0], type, &count), "MPI_Get_count");
    EXADNN_CHECK(count == n, "dist::recv", what, ": the message holds ", count,
                 " elements, the tensor ", n);
  };
  return launch(
      state_, what, false, {t}, "MPI_Irecv",
      [&](MPI_Request* r) { return MPI_Irecv(t.data_ptr(), n, type, src, tag, state_->data, r); },
      check_count);
}

Work Communicator::barrier() const {
  auto w = std::make_shared<detail::WorkState>();
  w->comm = state_;
  w->collective = ++state_->collectives_started;
  w->what = exadnn::detail::cat("barrier #", w->collective);
  w->requests.push_back(MPI_REQUEST_NULL);
  detail::mpi_check(MPI_Ibarrier(state_->data, &w->requests[0]), "MPI_Ibarrier");
  return Work(std::move(w));
}

void Communicator::abort(const std::string& message, int code) const {
  detail::abort_processes(state_->data, message, code);
}

}  // namespace exadnn::dist
