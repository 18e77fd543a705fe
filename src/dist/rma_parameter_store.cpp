#include "exadnn/dist/rma_parameter_store.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <exception>
#include <functional>
#include <thread>

#include "comm_state.h"
#include "exadnn/dist/data_parallel.h"
#include "mpi_check.h"

namespace exadnn::dist {

namespace {
constexpr const char* kWhere = "dist::RmaParameterStore";
// The update count of a rank that called finish() or pause(): never the slowest.
constexpr int64_t kFinished = INT64_MAX;

using detail::mpi_check;

// A window of `count` elements of `unit` bytes on this rank, errors returned (not fatal).
MPI_Win allocate(MPI_Comm comm, int64_t count, int unit, MPI_Info info, void* base) {
  MPI_Win win = MPI_WIN_NULL;
  mpi_check(MPI_Win_allocate(static_cast<MPI_Aint>(count * unit), unit, info, comm, base, &win),
            "RmaParameterStore: MPI_Win_allocate");
  mpi_check(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN),
            "RmaParameterStore: MPI_Win_set_errhandler");
  return win;
}

// Ends this rank's passive-target epoch on `win` and, unless an exception is unwinding the stack
// (the other ranks may never get here), frees it (collective).
void release(MPI_Win& win, bool locked) {
  if (win == MPI_WIN_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (locked) MPI_Win_unlock_all(win);
  if (std::uncaught_exceptions() == 0) MPI_Win_free(&win);
}
}  // namespace

struct RmaParameterStore::Windows {
  MPI_Win params = MPI_WIN_NULL;  // this rank's shard of the parameters (f32)
  MPI_Win counts = MPI_WIN_NULL;  // this rank's update count (int64)
  bool locked = false;
};

RmaParameterStore::RmaParameterStore(nn::Module& module, const Communicator& comm,
                                     RmaOptions options)
    : comm_(comm), options_(options), windows_(std::make_unique<Windows>()) {
  broadcast_module(module, comm_);
  for (const Tensor& p : module.parameters()) {
    if (!p.requires_grad()) continue;
    EXADNN_CHECK(p.dtype() == DType::f32 && p.device().kind == DeviceKind::cpu && p.is_contiguous(),
                 kWhere, "parameters must be contiguous f32 host tensors, got a ",
                 dtype_name(p.dtype()), " one of shape ", p.shape().str());
    params_.push_back(p);
    numel_ += p.numel();
  }
  EXADNN_CHECK(numel_ > 0, kWhere, "the module has no trainable parameters");
  EXADNN_CHECK(numel_ / comm_.size() < INT_MAX - 1, kWhere, numel_,
               " parameters make shards too large for one MPI operation");
  flat_.resize(static_cast<size_t>(numel_));
  delta_.resize(static_cast<size_t>(numel_));
  pack(flat_);

  MPI_Comm c = comm_.state()->data;
  const int me = comm_.rank();
  MPI_Info info;
  mpi_check(MPI_Info_create(&info), "RmaParameterStore: MPI_Info_create");
  // Only SUM and NO_OP on the parameters.
  mpi_check(MPI_Info_set(info, "accumulate_ops", "same_op_no_op"),
            "RmaParameterStore: MPI_Info_set");
  float* shard = nullptr;
  int64_t* count = nullptr;
  windows_->params =
      allocate(c, shard_begin(me + 1) - shard_begin(me), sizeof(float), info, &shard);
  mpi_check(MPI_Info_free(&info), "RmaParameterStore: MPI_Info_free");
  windows_->counts = allocate(c, 1, sizeof(int64_t), MPI_INFO_NULL, &count);
  std::copy(flat_.begin() + shard_begin(me), flat_.begin() + shard_begin(me + 1), shard);
  *count = 0;
  mpi_check(MPI_Win_lock_all(0, windows_->params), "RmaParameterStore: MPI_Win_lock_all");
  mpi_check(MPI_Win_lock_all(0, windows_->counts), "RmaParameterStore: MPI_Win_lock_all");
  windows_->locked = true;
  // The local stores above, visible to the others' reads.
  mpi_check(MPI_Win_sync(windows_->params), "RmaParameterStore: MPI_Win_sync");
  mpi_check(MPI_Win_sync(windows_->counts), "RmaParameterStore: MPI_Win_sync");
  comm_.barrier().wait();
}

RmaParameterStore::~RmaParameterStore() {
  if (finished_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || !windows_->locked) return;
  MPI_Win_unlock_all(windows_->params);
  MPI_Win_unlock_all(windows_->counts);
}

int64_t RmaParameterStore::shard_begin(int r) const {
  return numel_ * r / comm_.size();
}

void RmaParameterStore::pack(std::vector<float>& out) const {
  float* at = out.data();
  for (const Tensor& p : params_) at = std::copy_n(p.data<float>(), p.numel(), at);
}

void RmaParameterStore::unpack(const std::vector<float>& in) {
  const float* at = in.data();
  for (const Tensor& p : params_) {
    std::copy_n(at, p.numel(), p.data<float>());
    at += p.numel();
  }
}

void RmaParameterStore::read() {
  if (finished_) {  // the final values, fetched by finish()
    unpack(flat_);
    return;
  }
  for (int r = 0; r < comm_.size(); ++r) {
    const int64_t b = shard_begin(r);
    const int n = static_cast<int>(shard_begin(r + 1) - b);
    if (n == 0) continue;
    if (options_.has_atomic_reads())
      mpi_check(MPI_Get_accumulate(nullptr, 0, MPI_FLOAT, flat_.data() + b, n, MPI_FLOAT, r, 0, n,
                                   MPI_FLOAT, MPI_NO_OP, windows_->params),
                "RmaParameterStore::read: MPI_Get_accumulate");
    else
      mpi_check(MPI_Get(flat_.data() + b, n, MPI_FLOAT, r, 0, n, MPI_FLOAT, windows_->params),
                "RmaParameterStore::read: MPI_Get");
  }
  mpi_check(MPI_Win_flush_all(windows_->params), "RmaParameterStore::read: MPI_Win_flush_all");
  unpack(flat_);
}

void RmaParameterStore::accumulate(const float* delta) {
  EXADNN_CHECK(!finished_, kWhere, "an update after finish()");
  const bool fetch = options_.reads_on_update();
  for (int r = 0; r < comm_.size(); ++r) {
    const int64_t b = shard_begin(r);
    const int n = static_cast<int>(shard_begin(r + 1) - b);
    if (n == 0) continue;
    // MPI does not write the origin buffer; the cast only satisfies older MPI-2 prototypes.
    float* origin = const_cast<float*>(delta + b);
    if (fetch)
      mpi_check(MPI_Get_accumulate(origin, n, MPI_FLOAT, flat_.data() + b, n, MPI_FLOAT, r, 0, n,
                                   MPI_FLOAT, MPI_SUM, windows_->params),
                "RmaParameterStore: MPI_Get_accumulate");
    else
      mpi_check(MPI_Accumulate(origin, n, MPI_FLOAT, r, 0, n, MPI_FLOAT, MPI_SUM, windows_->params),
                "RmaParameterStore: MPI_Accumulate");
  }
  mpi_check(MPI_Win_flush_all(windows_->params), "RmaParameterStore: MPI_Win_flush_all");
  if (fetch) {  // what the windows hold now, but for other ranks' updates since
    std::transform(flat_.begin(), flat_.end(), delta, flat_.begin(), std::plus<float>());
    unpack(flat_);
  }
  count_update();
  // Held back by the bound, this rank's fetch went stale while it waited: it reads again.
  if (wait_for_stragglers() && fetch) read();
}

void RmaParameterStore::apply_gradients(double lr) {
  // The same float arithmetic as the SGD kernel: p + fl(fl(-lr)·g).
  const float neg_lr = static_cast<float>(-lr);
  float* at = delta_.data();
  for (const Tensor& p : params_) {
    const Tensor g = p.grad();
    if (!g.defined()) {
      at = std::fill_n(at, p.numel(), 0.0f);
      continue;
    }
    EXADNN_CHECK(g.dtype() == DType::f32 && g.is_contiguous(), kWhere,
                 "gradients must be contiguous f32 tensors");
    const float* gv = g.data<float>();
    at = std::transform(gv, gv + p.numel(), at, [neg_lr](float gi) { return neg_lr * gi; });
  }
  accumulate(delta_.data());
}

void RmaParameterStore::step(optim::Optimizer& opt) {
  pack(delta_);  // the values before the step
  opt.step();
  float* at = delta_.data();  // now the change: after - before
  for (const Tensor& p : params_) {
    const float* now = p.data<float>();
    at = std::transform(now, now + p.numel(), at, at, std::minus<float>());
  }
  accumulate(delta_.data());
}

void RmaParameterStore::count_update() {
  ++updates_;
  // Paused, the window holds kFinished: the first update after it puts the true count back.
  const int64_t value = paused_ ? updates_ : 1;
  set_own_count(value, /*replace=*/paused_);
  paused_ = false;
}

void RmaParameterStore::set_own_count(int64_t value, bool replace) {
  const int me = comm_.rank();
  mpi_check(MPI_Accumulate(&value, 1, MPI_INT64_T, me, 0, 1, MPI_INT64_T,
                           replace ? MPI_REPLACE : MPI_SUM, windows_->counts),
            "RmaParameterStore: counting an update");
  mpi_check(MPI_Win_flush(me, windows_->counts), "RmaParameterStore: MPI_Win_flush");
}

void RmaParameterStore::pause() {
  EXADNN_CHECK(!finished_, kWhere, "pause() after finish()");
  if (paused_ || options_.staleness() < 0) return;  // without a bound nobody waits anyway
  set_own_count(kFinished, /*replace=*/true);
  paused_ = true;
}

std::vector<int64_t> RmaParameterStore::update_counts() {
  EXADNN_CHECK(!finished_, kWhere, "update_counts() after finish()");
  std::vector<int64_t> counts(static_cast<size_t>(comm_.size()));
  for (int r = 0; r < comm_.size(); ++r)
    mpi_check(MPI_Get_accumulate(nullptr, 0, MPI_INT64_T, &counts[static_cast<size_t>(r)], 1,
                                 MPI_INT64_T, r, 0, 1, MPI_INT64_T, MPI_NO_OP, windows_->counts),
              "RmaParameterStore: reading the update counts");
  mpi_check(MPI_Win_flush_all(windows_->counts), "RmaParameterStore: MPI_Win_flush_all");
  return counts;
}

bool RmaParameterStore::wait_for_stragglers() {
  const int64_t bound = options_.staleness();
  if (bound < 0 || comm_.size() == 1) return false;
  detail::CommState& state = *comm_.state();
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(50);
  bool waited_once = false;
  while (true) {
    const std::vector<int64_t> counts = update_counts();
    const int64_t slowest = *std::min_element(counts.begin(), counts.end());
    if (updates_ - slowest <= bound) return waited_once;
    waited_once = true;
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > state.timeout) {
      std::string behind;
      for (int r = 0; r < comm_.size(); ++r)
        if (updates_ - counts[static_cast<size_t>(r)] > bound)
          behind += exadnn::detail::cat(behind.empty() ? "" : ", ", r, " (", counts[size_t(r)],
                                        " updates)");
      throw TimeoutError(
          kWhere,
          exadnn::detail::cat("rank ", comm_.rank(), " (", updates_, " updates, staleness ", bound,
                              ") waited ", std::chrono::duration<double>(waited).count(),
                              " s (the timeout) for ranks that made no progress: ", behind,
                              " (exited, hung or much slower)"));
    }
    state.serve_queries();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

void RmaParameterStore::finish() {
  if (finished_) return;
  set_own_count(kFinished, /*replace=*/true);  // nobody waits for a finished rank
  // Every rank's updates were flushed before it got here: after the barrier, all are in.
  comm_.barrier().wait();
  read();
  finished_ = true;
  release(windows_->params, true);
  release(windows_->counts, true);
  windows_->locked = false;
}

struct RmaCounter::Window {
  MPI_Win win = MPI_WIN_NULL;
};

RmaCounter::RmaCounter(const Communicator& comm)
    : comm_(comm), window_(std::make_unique<Window>()) {
  int64_t* value = nullptr;
  window_->win = allocate(comm_.state()->data, comm_.rank() == 0 ? 1 : 0, sizeof(int64_t),
                          MPI_INFO_NULL, &value);
  if (comm_.rank() == 0) *value = 0;
  mpi_check(MPI_Win_lock_all(0, window_->win), "RmaCounter: MPI_Win_lock_all");
  mpi_check(MPI_Win_sync(window_->win), "RmaCounter: MPI_Win_sync");
  comm_.barrier().wait();
}

RmaCounter::~RmaCounter() {
  release(window_->win, true);
}

int64_t RmaCounter::fetch_add(int64_t n) {
  int64_t before = 0;
  mpi_check(MPI_Fetch_and_op(&n, &before, MPI_INT64_T, 0, 0, MPI_SUM, window_->win),
            "RmaCounter: MPI_Fetch_and_op");
  mpi_check(MPI_Win_flush(0, window_->win), "RmaCounter: MPI_Win_flush");
  return before;
}

}  // namespace exadnn::dist
